#include "attn/attention/layer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "attn/attention/projection.hpp"
#include "attn/attention/reduced.hpp"
#include "attn/attention/score.hpp"

namespace attn {

namespace {

template <class T>
MatrixRef<T> view(const xt::xtensor<T, 2>& m) {
    return {m.data(), m.shape(0), m.shape(1), m.shape(1)};
}

template <class T>
xt::xtensor<T, 2> copy_rows(MatrixRef<T> m, const std::vector<std::size_t>& p) {
    xt::xtensor<T, 2> out = xt::xtensor<T, 2>::from_shape({m.rows, m.cols});
    for (std::size_t i = 0; i < m.rows; ++i) {
        const T* row = m.data + (p.empty() ? i : p[i]) * m.stride;
        std::copy(row, row + m.cols, out.data() + i * m.cols);
    }
    return out;
}

[[noreturn]] void invalid(const std::string& what) {
    throw std::invalid_argument("attention layer: " + what);
}

void check_permutation(const std::vector<std::size_t>& p, std::size_t n) {
    if (p.empty()) return;
    if (p.size() != n) invalid(fmt::format("a permutation of {} rows has {} entries", n, p.size()));
    std::vector<bool> seen(n, false);
    for (std::size_t v : p) {
        if (v >= n || seen[v]) invalid(fmt::format("{} is not a permutation of 0..{}", v, n - 1));
        seen[v] = true;
    }
}

// Head h's score (score.hpp): the options' scale and soft-cap, the scheme's bias.
template <class T>
ScoreOptions<T> score_of(const positions::PositionScheme<T>& scheme, std::size_t h,
                         const LayerOptions& o) {
    ScoreOptions<T> score;
    score.scale = o.scale;
    score.softcap = o.softcap;
    score.bias = scheme.bias(h);
    return score;
}

// The fused kernel's bias and options for head h (score.hpp's fused_bias, fused_options).
template <class T>
AttentionBias<T> tiled_bias(const positions::PositionScheme<T>& scheme, std::size_t h,
                            const LayerOptions& o) {
    return fused_bias(score_of(scheme, h, o), o.mask);
}

TiledOptions tiled_options(const LayerOptions& o) {
    return fused_options(ScoreOptions<float>{o.scale, o.softcap, {}}, o.mask, o.progress);
}

// Row blocks from the matrices the direct path holds (their buffers, which a move of the
// LayerResult keeps where they are).
template <class T>
class HeldRows : public LayerRows<T> {
  public:
    explicit HeldRows(const LayerResult<T>& r) : n_(r.output.shape(0)) {
        const auto take = [](const std::vector<xt::xtensor<T, 2>>& held) {
            std::vector<const T*> p;
            for (const auto& m : held) p.push_back(m.data());
            return p;
        };
        held_ = {take(r.scores), take(r.scaled_scores), take(r.masked_scores), take(r.weights)};
    }
    void rows(std::size_t h, std::size_t row0, std::size_t rows,
              const ScoreRows<T>& out) const override {
        T* ScoreRows<T>::*const dst[] = {&ScoreRows<T>::raw, &ScoreRows<T>::scores,
                                         &ScoreRows<T>::masked, &ScoreRows<T>::weights};
        const char* names[] = {"scores", "scaled scores", "masked scores", "weights"};
        for (std::size_t a = 0; a < 4; ++a) {
            T* d = out.*dst[a];
            if (!d) continue;
            if (held_[a].empty())
                throw std::logic_error(
                    fmt::format("attention layer: the {} were not kept", names[a]));
            for (std::size_t r = 0; r < rows; ++r)
                std::copy_n(held_[a][h] + (row0 + r) * n_, n_, d + r * out.stride);
        }
    }

  private:
    std::size_t n_;
    std::vector<std::vector<const T*>> held_;
};

// Row blocks computed by the fused kernel's score rows, one head's packed keys at a time.
template <class T>
class TiledRows : public LayerRows<T> {
  public:
    TiledRows(std::vector<MatrixRef<T>> q, std::vector<MatrixRef<T>> k, std::size_t group,
              const positions::PositionScheme<T>& scheme, const LayerOptions& options)
        : q_(std::move(q)), k_(std::move(k)), group_(group), scheme_(scheme), options_(options) {}
    void rows(std::size_t h, std::size_t row0, std::size_t rows,
              const ScoreRows<T>& out) const override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!att_ || h != head_) {
            att_.reset();  // one packed K at a time
            att_ = std::make_unique<TiledAttention<T>>(q_[h], k_[h / group_], MatrixRef<T>{},
                                                       tiled_options(options_),
                                                       tiled_bias(scheme_, h, options_));
            head_ = h;
        }
        att_->rows(row0, rows, out);
    }

  private:
    std::vector<MatrixRef<T>> q_, k_;
    std::size_t group_;
    positions::PositionScheme<T> scheme_;
    LayerOptions options_;
    mutable std::mutex mutex_;
    mutable std::unique_ptr<TiledAttention<T>> att_;
    mutable std::size_t head_ = 0;
};

}  // namespace

template <class T>
LayerResult<T> forward(const LayerInput<T>& input, const LayerWeights<T>& weights,
                       const positions::PositionScheme<T>& scheme, const LayerOptions& options) {
    const bool given = input.x.data == nullptr && input.x.rows == 0;
    if (given && weights.identity) invalid("identity weights take x; the projections were given");
    const std::size_t H = weights.identity ? 1 : given ? input.q.size() : weights.query.size();
    const std::size_t G = weights.identity ? 1 : given ? input.k.size() : weights.key.size();
    const std::size_t G_v = weights.identity ? 1 : given ? input.v.size() : weights.value.size();
    if (H == 0) invalid("no query heads");
    if (G == 0 || G != G_v || H % G != 0)
        invalid(
            fmt::format("{} key and {} value heads for {} query heads: the key/value heads "
                        "must be as many and divide the query heads",
                        G, G_v, H));
    const std::size_t n = given ? input.q.front().rows : input.x.rows;
    if (n == 0) invalid("no rows");
    check_permutation(input.permutation, n);
    const std::optional<runtime::Reduced> D = options.dtype;
    if (D && options.path != AttentionPath::direct)
        invalid("bfloat16 and float16 are computed on the direct path only");
    const ProjectionSum sum =
        options.path == AttentionPath::direct ? ProjectionSum::blas : ProjectionSum::ordered;
    // y = x W + b, rounded once to D with a reduced dtype (nn.Linear's addmm)
    const auto projected = [&](MatrixRef<T> x, const Projection<T>& w) {
        xt::xtensor<T, 2> y = project(x, w, sum);
        if (D) runtime::round_all(*D, y.data(), y.size());
        return y;
    };
    const std::vector<std::size_t>& p = input.permutation;

    LayerResult<T> r;
    if (given) {
        if (scheme.scheme() == positions::Scheme::sinusoidal)
            invalid("sinusoidal positions are added to x; the projections were given");
        for (const auto& m : input.q) r.queries.push_back(copy_rows(m, p));
        for (const auto& m : input.k) r.keys.push_back(copy_rows(m, p));
        for (const auto& m : input.v) r.values.push_back(copy_rows(m, p));
    } else {
        // x' = x[p] (+ P) (n, d_in), made only where it differs from x
        if (!p.empty() || scheme.adds()) {
            r.input = copy_rows(input.x, p);
            if (D)
                add_positions_reduced(scheme, *D, r.input.data(), n, r.input.shape(1));
            else
                scheme.add_positions(r.input.data(), 0, n, r.input.shape(1));
        }
        const MatrixRef<T> x = r.input.size() > 0 ? view(r.input) : input.x;
        if (weights.identity) {
            r.queries = r.keys = r.values = {copy_rows(x, {})};  // q = k = v = x' (n, d_in)
        } else {
            for (const auto& w : weights.query) r.queries.push_back(projected(x, w));
            for (const auto& w : weights.key) r.keys.push_back(projected(x, w));
            for (const auto& w : weights.value) r.values.push_back(projected(x, w));
        }
    }
    for (const auto& m : r.queries)
        if (m.shape(0) != n || m.shape(1) != r.queries.front().shape(1) ||
            m.shape(1) != r.keys.front().shape(1))
            invalid("queries and keys of every head need the same rows and width d_k");
    if (scheme.rotates() && scheme.config().rope.d > r.queries.front().shape(1))
        invalid(fmt::format("a rotary dimension of {} for queries and keys of width {}",
                            scheme.config().rope.d, r.queries.front().shape(1)));
    if (scheme.rotates()) {
        const auto rotated = [&](xt::xtensor<T, 2>& m) {
            const std::size_t d_k = m.shape(1);
            xt::xtensor<T, 2> out;  // (n, d_k)
            if (options.keep_unrotated) {
                out = m;
            } else {
                out = std::move(m);
                m = xt::xtensor<T, 2>::from_shape({0, 0});
            }
            if (D)
                rotate_reduced(scheme, *D, out.data(), n, d_k);
            else
                scheme.rotate(out.data(), 0, n, d_k);
            return out;
        };
        for (auto& m : r.queries) r.rotated_queries.push_back(rotated(m));
        for (auto& m : r.keys) r.rotated_keys.push_back(rotated(m));
    }
    const auto& qs = scheme.rotates() ? r.rotated_queries : r.queries;
    const auto& ks = scheme.rotates() ? r.rotated_keys : r.keys;
    const std::size_t group = H / G;
    std::size_t width = 0;
    for (std::size_t h = 0; h < H; ++h) width += r.values[h / group].shape(1);
    r.concat = xt::xtensor<T, 2>::from_shape({n, width});  // (n, H d_v)

    if (options.path == AttentionPath::direct) {
        std::size_t col = 0;
        for (std::size_t h = 0; h < H; ++h) {
            const ScoreOptions<T> score = score_of(scheme, h, options);
            AttentionResult<T> a =
                D ? reduced_attention(qs[h], ks[h / group], r.values[h / group], options.mask,
                                      score, *D)
                  : scaled_dot_product_attention(qs[h], ks[h / group], r.values[h / group],
                                                 options.mask, score);
            if (options.keep_masked)
                r.masked_scores.push_back(masked_scores(a.scaled, options.mask));
            if (options.keep_scores) r.scores.push_back(std::move(a.scores));
            if (options.keep_scaled) r.scaled_scores.push_back(std::move(a.scaled));
            if (options.keep_weights) r.weights.push_back(std::move(a.weights));
            const std::size_t d_v = a.context.shape(1);
            for (std::size_t i = 0; i < n; ++i)  // column block h of concat
                std::copy_n(a.context.data() + i * d_v, d_v, r.concat.data() + i * width + col);
            col += d_v;
            r.context.push_back(std::move(a.context));
            if (options.progress) options.progress(n);
        }
    } else if (group > 1 && scheme.scheme() != positions::Scheme::alibi &&
               scheme.scheme() != positions::Scheme::t5) {
        // Grouped K/V with a bias shared by the heads (none but a sliding window): the query
        // heads of a group go through the kernel together, each key tile read once for all.
        std::vector<std::size_t> col(H + 1, 0);  // head h's column block of concat
        for (std::size_t h = 0; h < H; ++h) col[h + 1] = col[h] + r.values[h / group].shape(1);
        for (std::size_t g = 0; g < G; ++g) {
            std::vector<MatrixRef<T>> q;
            std::vector<T*> out;
            for (std::size_t h = g * group; h < (g + 1) * group; ++h) {
                q.push_back(view(qs[h]));
                out.push_back(r.concat.data() + col[h]);
            }
            tiled_attention_group(q, view(ks[g]), view(r.values[g]), out, width,
                                  tiled_options(options), tiled_bias(scheme, g * group, options));
        }
    } else {
        std::size_t col = 0;
        for (std::size_t h = 0; h < H; ++h) {
            const xt::xtensor<T, 2>& v = r.values[h / group];
            const TiledAttention<T> att(view(qs[h]), view(ks[h / group]), view(v),
                                        tiled_options(options), tiled_bias(scheme, h, options));
            att.context(r.concat.data() + col, width);  // progress after each query tile
            col += v.shape(1);
        }
    }
    if (weights.output)
        r.output = projected(view(r.concat), *weights.output);  // (n, H d_v) -> (n, d_out)
    else
        r.output = std::move(r.concat);  // no copy: concat is left empty

    if (options.path == AttentionPath::direct) {
        r.rows = std::make_shared<HeldRows<T>>(r);
    } else {
        std::vector<MatrixRef<T>> q, k;
        for (const auto& m : qs) q.push_back(view(m));
        for (const auto& m : ks) k.push_back(view(m));
        r.rows = std::make_shared<TiledRows<T>>(std::move(q), std::move(k), group, scheme, options);
    }
    return r;
}

template LayerResult<float> forward<float>(const LayerInput<float>&, const LayerWeights<float>&,
                                           const positions::PositionScheme<float>&,
                                           const LayerOptions&);
template LayerResult<double> forward<double>(const LayerInput<double>&, const LayerWeights<double>&,
                                             const positions::PositionScheme<double>&,
                                             const LayerOptions&);

}  // namespace attn
