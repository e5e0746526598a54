#include "cli/attend_streamed.hpp"
#include "runtime/memory_budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "cli/common_options.hpp"
#include "cli/enum_option.hpp"
#include "cli/errors.hpp"
#include "runtime/parallel.hpp"

namespace attn::cli {

namespace {

template <class T>
MatrixRef<T> view(const xt::xtensor<T, 2>& m) {
    return {m.data(), m.shape(0), m.shape(1), m.shape(1)};
}

TiledOptions tiled_options(const MaskOptions& mask, std::optional<double> scale) {
    TiledOptions o;
    o.scale = scale;
    o.causal = mask.causal;
    o.valid_len = mask.valid_len;
    o.fill = mask.fill;
    return o;
}

// Rows [lo, hi) of out (n, p) = x (n, m) w (m, p), row i summed over m in order: the same
// bits whichever thread computes it (OpenBLAS's rounding changes with its thread count) and
// for every instruction set (no FMA contraction: -ffp-contract=off); cloned for AVX-512
// and AVX2 for speed.
#define ATTN_PROJECT_ROWS(T)                                                             \
    __attribute__((target_clones("avx512f", "avx2", "default"))) void project_rows(      \
        const T* __restrict x, const T* __restrict w, T* __restrict out, std::size_t lo, \
        std::size_t hi, std::size_t m, std::size_t p) {                                  \
        for (std::size_t i = lo; i < hi; ++i) {                                          \
            T* o = out + i * p;                                                          \
            for (std::size_t k = 0; k < m; ++k) {                                        \
                const T a = x[i * m + k];                                                \
                const T* wr = w + k * p;                                                 \
                for (std::size_t c = 0; c < p; ++c) o[c] += a * wr[c];                   \
            }                                                                            \
        }                                                                                \
    }
ATTN_PROJECT_ROWS(float)
ATTN_PROJECT_ROWS(double)
#undef ATTN_PROJECT_ROWS

template <class T>
xt::xtensor<T, 2> project(const xt::xtensor<T, 2>& x, const xt::xtensor<T, 2>& w) {
    const std::size_t n = x.shape(0), m = x.shape(1), p = w.shape(1);
    if (w.shape(0) != m)
        throw std::invalid_argument(
            fmt::format("attend: cannot multiply ({}, {}) by ({}, {})", n, m, w.shape(0), p));
    xt::xtensor<T, 2> out = xt::zeros<T>({n, p});
    parallel_for(n, 256, [&](std::size_t lo, std::size_t hi) {
        project_rows(x.data(), w.data(), out.data(), lo, hi, m, p);
    });
    return out;
}

// The ScoreRows field an n x n array of the --show table is, or null.
template <class T>
T* ScoreRows<T>::*score_field(Show item) {
    switch (item) {
        case Show::scores:
            return &ScoreRows<T>::raw;
        case Show::scaled_scores:
            return &ScoreRows<T>::scores;
        case Show::masked_scores:
            return &ScoreRows<T>::masked;
        case Show::weights:
            return &ScoreRows<T>::weights;
        default:
            return nullptr;
    }
}

// Per sequence and head, scores, scaled scores, weights (T) and the mask (1 byte), n x n each;
// plus the projections: refused above --max-memory before anything is allocated.
template <class T>
void check_direct_memory(const AttendOptions& opt, const std::vector<Sequence>& seqs,
                         const Dims& dims) {
    std::uint64_t bytes = 0;
    for (const auto& s : seqs) {
        const std::uint64_t b = std::max<std::size_t>(s.batch, 1), n = s.n();
        bytes +=
            runtime::checked_product({b, dims.heads, n, n, 3 * sizeof(T) + 1}, "attention scores") +
            runtime::checked_product(
                {b, n, dims.d_in + dims.heads * (2 * dims.dq + dims.dv) + dims.d_out,
                 sizeof(T) * 2},
                "projections");
    }
    const Sequence& first = seqs.front();
    runtime::reserve(bytes, !opt.input.empty()
                                ? fmt::format("--input: {}{} x {} x {} attention scores",
                                              first.batch ? fmt::format("{} x ", first.batch) : "",
                                              dims.heads, first.n(), first.n())
                                : "the attention scores");
}

// The tiled path: every head's Q, K, V, the inputs, the context, one packed K and the
// streamed row blocks; no n x n matrix.
template <class T>
void check_tiled_memory(const AttendOptions& opt, const std::vector<Sequence>& seqs,
                        const Dims& dims, const std::vector<Show>& show, std::size_t block_rows) {
    std::uint64_t bytes = 0, widest = 0;
    for (const auto& s : seqs) {
        const std::uint64_t b = std::max<std::size_t>(s.batch, 1), n = s.n();
        widest = std::max(widest, n);
        bytes += runtime::checked_product(
            {b, n, dims.d_in + dims.heads * (dims.dq + dims.dk + 2 * dims.dv) + dims.d_out,
             sizeof(T)},
            "the projections");
    }
    bytes += runtime::checked_product({widest, dims.dk + dims.dv, sizeof(T)}, "the packed keys");
    if (std::any_of(show.begin(), show.end(), [](Show s) { return score_field<T>(s); }))
        // the rows in T, the doubles handed to the writer and the block made ahead
        bytes += runtime::checked_product({block_rows, widest, sizeof(T) + 2 * sizeof(double)},
                                          "the streamed rows");
    const Sequence& first = seqs.front();
    runtime::reserve(
        bytes, fmt::format("{}tiled attention over {}{} rows", opt.input.empty() ? "" : "--input: ",
                           first.batch ? fmt::format("{} x ", first.batch) : "", first.n()));
}

}  // namespace

template <class T>
io::DriveOptions plan_attention(const AttendOptions& opt, const std::vector<Sequence>& seqs,
                                const Dims& dims, const std::vector<Show>& show, bool tiled) {
    io::DriveOptions drive;
    if (!tiled) {
        check_direct_memory<T>(opt, seqs, dims);
        return drive;
    }
    std::size_t widest = 1;
    for (const auto& s : seqs) widest = std::max(widest, s.n());
    drive.block_rows = std::clamp<std::size_t>((std::size_t{1} << 22) / widest, 1, 256);
    drive.compute_ahead = thread_count(opt.out) > 1;
    check_tiled_memory<T>(opt, seqs, dims, show, drive.block_rows);
    return drive;
}

// One streamed n x n array: the head whose rows were last asked for, kept prepared.
template <class T>
struct StreamedAttention<T>::Source {
    const StreamedAttention* self;
    std::size_t k;
    T* ScoreRows<T>::*field;
    std::vector<std::size_t> rows;
    std::size_t b = 0, h = 0;
    std::unique_ptr<TiledAttention<T>> att;
    std::vector<T> buffer;

    const TiledAttention<T>& prepared(std::size_t nb, std::size_t nh) {
        if (!att || nb != b || nh != h) {
            att.reset();  // one packed K at a time
            const HeadResult<T>& head = self->results_[k][nb].heads[nh];
            const std::size_t s = self->first_[k] + nb;
            const HeadScoring<T> sc =
                nh < self->scoring_.size() ? self->scoring_[nh] : HeadScoring<T>{};
            att = std::make_unique<TiledAttention<T>>(
                view(head.queries), view(head.keys), MatrixRef<T>{},
                tiled_options(self->masks_[s], sc.scale), sc.bias);
            b = nb, h = nh;
        }
        return *att;
    }

    // Rows [first, first + count) of the stack [b][h][rows], n_k columns each.
    void produce(std::size_t first, std::size_t count, double* out) {
        const std::size_t nr = rows.size(), heads = self->results_[k].front().heads.size();
        for (std::size_t done = 0; done < count;) {
            const std::size_t r = first + done, i = rows[r % nr];
            std::size_t len = 1;  // consecutive query rows of one head
            while (done + len < count && (r + len) % nr != 0 && rows[(r + len) % nr] == i + len)
                ++len;
            const TiledAttention<T>& a = prepared(r / nr / heads, r / nr % heads);
            const std::size_t n_k = results_k_keys(r / nr / heads, r / nr % heads);
            buffer.resize(len * n_k);
            ScoreRows<T> sr;
            sr.*field = buffer.data();
            sr.stride = n_k;
            a.rows(i, len, sr);
            std::transform(buffer.begin(), buffer.end(), out + done * n_k,
                           [](T x) { return static_cast<double>(x); });
            self->progress_->advance(len);
            done += len;
        }
    }

    std::size_t results_k_keys(std::size_t nb, std::size_t nh) const {
        return self->results_[k][nb].heads[nh].keys.shape(0);
    }
};

template <class T>
StreamedAttention<T>::StreamedAttention(const std::vector<std::vector<xt::xtensor<T, 2>>>& xs,
                                        const Parameters<T>& par, std::vector<MaskOptions> masks,
                                        bool context, std::vector<HeadScoring<T>> scoring,
                                        bool progress)
    : masks_(std::move(masks)), scoring_(std::move(scoring)) {
    std::uint64_t context_rows = 0;
    for (const auto& seq : xs)
        for (const auto& x : seq) context_rows += context ? x.shape(0) * par.heads.size() : 0;
    progress_ = std::make_shared<io::Progress>("attend", context_rows, progress);
    std::size_t s = 0;
    results_.resize(xs.size());
    for (std::size_t k = 0; k < xs.size(); ++k) {
        first_.push_back(s);
        for (const auto& x : xs[k]) {
            MultiHeadResult<T>& r = results_[k].emplace_back();
            std::size_t width = 0;
            for (const HeadWeights<T>& w : par.heads) {
                HeadResult<T>& head = r.heads.emplace_back();
                head.queries = project(x, w.w_query);  // (n, d_in) x (d_in, d_q)
                head.keys = project(x, w.w_key);       // (n, d_in) x (d_in, d_k)
                head.values = project(x, w.w_value);   // (n, d_in) x (d_in, d_v)
                width += w.w_value.shape(1);
            }
            if (context) {
                // [z_0 | ... | z_{H-1}] (n, sum d_v), head h written in its column block
                const std::size_t n = x.shape(0);
                xt::xtensor<T, 2> concat = xt::xtensor<T, 2>::from_shape({n, width});
                std::size_t col = 0;
                for (std::size_t h = 0; h < r.heads.size(); ++h) {
                    const HeadResult<T>& head = r.heads[h];
                    const HeadScoring<T> sc = h < scoring_.size() ? scoring_[h] : HeadScoring<T>{};
                    const TiledAttention<T> att(view(head.queries), view(head.keys),
                                                view(head.values),
                                                tiled_options(masks_[s], sc.scale), sc.bias);
                    // Blocks of whole query tiles: the same bits as one call.
                    const std::size_t step = 16 * att.tile_rows();
                    for (std::size_t i = 0; i < n; i += step) {
                        const std::size_t len = std::min(step, n - i);
                        att.context(i, len, concat.data() + col, width);
                        progress_->advance(len);
                    }
                    col += head.values.shape(1);
                }
                if (par.w_out) {
                    r.output = project(concat, *par.w_out);  // (n, H d_v) x (H d_v, d_out)
                } else {
                    r.output = std::move(concat);
                }
            }
            ++s;
        }
    }
}

template <class T>
StreamedAttention<T>::~StreamedAttention() = default;

template <class T>
void StreamedAttention<T>::stream_rows(std::size_t k, Show item, std::optional<std::size_t> query,
                                       io::MatrixStream& e) const {
    T* ScoreRows<T>::*field = score_field<T>(item);
    if (!field) return;  // not an n x n matrix of the heads: made as on the direct path
    auto source = std::make_shared<Source>();
    source->self = this;
    source->k = k;
    source->field = field;
    if (query) {
        source->rows = {*query};
    } else {
        source->rows.resize(results_[k].front().heads.front().queries.shape(0));
        for (std::size_t i = 0; i < source->rows.size(); ++i) source->rows[i] = i;
    }
    progress_->add_total(results_[k].size() * results_[k].front().heads.size() *
                         source->rows.size());
    e.produce = [source](std::size_t first, std::size_t count, double* out) {
        source->produce(first, count, out);
    };
}

template <class T>
void attend_tiled(TiledRun<T>& out, const std::vector<Sequence>& seqs,
                  const std::vector<std::vector<MaskOptions>>& masks, const AttendOptions& opt,
                  const Dims& dims, const SchemeInputs& in, const Parameters<T>& par,
                  const std::vector<Show>& show, bool progress) {
    const auto shown = [&](Show s) { return std::find(show.begin(), show.end(), s) != show.end(); };
    std::vector<std::vector<xt::xtensor<T, 2>>> inputs(seqs.size());  // X + P for sinusoidal
    std::vector<MaskOptions> flat;
    std::size_t n_max = 0;
    out.x.resize(seqs.size());
    for (std::size_t k = 0; k < seqs.size(); ++k) {
        SequenceRun<T>& run = out.runs.emplace_back();
        run.masks = masks[k];
        run.scheme = std::make_shared<const PositionScheme<T>>(opt, dims, in, seqs[k].n(),
                                                               shown(Show::positions));
        for (const auto& x64 : seqs[k].x) {
            xt::xtensor<T, 2> x = xt::cast<T>(x64);
            inputs[k].push_back(run.scheme->input(x));
            if (shown(Show::embeddings)) out.x[k].push_back(std::move(x));
        }
        flat.insert(flat.end(), masks[k].begin(), masks[k].end());
        n_max = std::max(n_max, seqs[k].n());
    }
    // A bias indexed by j - i serves every shorter sequence too: one scheme of the longest.
    const PositionScheme<T> longest(opt, dims, in, n_max, false);
    std::vector<HeadScoring<T>> scoring;
    for (std::size_t h = 0; h < dims.heads; ++h)
        scoring.push_back({longest.bias(h), longest.scale()});
    out.attention.emplace(inputs, par, std::move(flat), shown(Show::context), std::move(scoring),
                          progress);
}

#define ATTN_STREAMED(T)                                                                   \
    template class StreamedAttention<T>;                                                   \
    template io::DriveOptions plan_attention<T>(const AttendOptions&,                      \
                                                const std::vector<Sequence>&, const Dims&, \
                                                const std::vector<Show>&, bool);           \
    template void attend_tiled<T>(TiledRun<T>&, const std::vector<Sequence>&,              \
                                  const std::vector<std::vector<MaskOptions>>&,            \
                                  const AttendOptions&, const Dims&, const SchemeInputs&,  \
                                  const Parameters<T>&, const std::vector<Show>&, bool);
ATTN_STREAMED(float)
ATTN_STREAMED(double)
#undef ATTN_STREAMED

}  // namespace attn::cli
