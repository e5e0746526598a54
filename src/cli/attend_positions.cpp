#include "cli/attend_positions.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "attn/positions/alibi.hpp"
#include "attn/positions/sinusoidal.hpp"
#include "cli/enum_option.hpp"
#include "cli/errors.hpp"
#include "io/output_spec.hpp"

namespace attn::cli {

namespace {

const NameTable<AttendScheme> kSchemes{{"none", AttendScheme::none},
                                       {"sinusoidal", AttendScheme::sinusoidal},
                                       {"rope", AttendScheme::rope},
                                       {"alibi", AttendScheme::alibi},
                                       {"t5", AttendScheme::t5}};

const char* layout_name(positions::RopeLayout l) {
    return l == positions::RopeLayout::split ? "split" : "interleaved";
}

// The layout of the scheme: --layout, else split for rope and interleaved for sinusoidal.
positions::RopeLayout layout_of(const AttendOptions& opt) {
    if (opt.rope.layout_opt && opt.rope.layout_opt->count()) return opt.rope.layout;
    return opt.scheme == AttendScheme::rope ? positions::RopeLayout::split
                                            : positions::RopeLayout::interleaved;
}

}  // namespace

void add_position_options(CLI::App& sub, CLI::App& parameters, AttendOptions& opt) {
    parameters.add_flag("--bias", opt.bias,
                        "Projection biases, nn.Linear(bias=True): each drawn after its weight");
    auto* g = sub.add_option_group("Positions");
    add_enum_option(*g, "--scheme", opt.scheme, kSchemes,
                    "Positions inside attention: none (the notebook), sinusoidal (X + P), rope "
                    "(q, k rotated), alibi or t5 (score biases)");
    g->add_option("--base", opt.base, "Base of sinusoidal's and rope's wavelengths, > 1")
        ->capture_default_str();
    g->add_option("--start", opt.start, "First position (sinusoidal, rope)")
        ->check(CLI::Range(-(std::int64_t{1} << 52), std::int64_t{1} << 52))
        ->capture_default_str();
    add_rope_options(*g, opt.rope);
    add_t5_options(*g, opt.t5, "--causal-bucket");
    g->add_option("--bias-table", opt.bias_table,
                  "t5: the learned biases, an .npy of shape (buckets, H)")
        ->type_name("FILE");
    g->add_flag("--no-scale", opt.no_scale, "Scores omega, not omega / sqrt(d_k) (T5)");
    g->add_option("--permute", opt.permute,
                  "Reorder the tokens (rows) first: new position i holds old token LIST[i]; "
                  "reverse")
        ->type_name("LIST|reverse");
}

std::vector<std::size_t> parse_permutation(const std::string& text, std::size_t n,
                                           const std::string& where) {
    std::vector<std::size_t> p;
    if (text == "reverse") {
        for (std::size_t i = 0; i < n; ++i) p.push_back(n - 1 - i);
        return p;
    }
    std::vector<bool> seen(n, false);
    for (std::size_t start = 0; start <= text.size();) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string f = text.substr(start, comma - start);
        std::size_t v = 0;
        const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
        if (f.empty() || ec != std::errc() || end != f.data() + f.size())
            throw UsageError("--permute: '" + f +
                             "' is not an index; give reverse or a permutation of 0..n-1");
        if (v >= n)
            throw UsageError(fmt::format(
                "--permute: index {} is out of range for {} ({} rows: 0..{})", v, where, n, n - 1));
        if (seen[v])
            throw UsageError(
                fmt::format("--permute: index {} is repeated; a permutation of 0..{} "
                            "names each index once",
                            v, n - 1));
        seen[v] = true;
        p.push_back(v);
        start = comma + 1;
    }
    if (p.size() != n)
        throw UsageError(
            fmt::format("--permute: {} indices for {} ({} rows); give a permutation of "
                        "0..{}",
                        p.size(), where, n, n - 1));
    return p;
}

Sequence permuted(const Sequence& s, const std::vector<std::size_t>& p) {
    Sequence out = s;
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (!s.tokens.empty()) out.tokens[i] = s.tokens[p[i]];
        if (!s.ids.empty()) out.ids[i] = s.ids[p[i]];
        for (std::size_t b = 0; b < s.x.size(); ++b)
            for (std::size_t c = 0; c < s.d_in(); ++c) out.x[b](i, c) = s.x[b](p[i], c);
    }
    return out;
}

SchemeInputs read_scheme_inputs(const AttendOptions& opt, const Dims& dims) {
    SchemeInputs in;
    if (!opt.bias_table.empty() && opt.scheme != AttendScheme::t5)
        throw UsageError("--bias-table: T5's bias table is read with --scheme t5 only");
    if ((opt.scheme == AttendScheme::sinusoidal || opt.scheme == AttendScheme::rope) &&
        (!std::isfinite(opt.base) || !(opt.base > 1.0)))
        throw UsageError(fmt::format("--base: {} is not a finite number greater than 1", opt.base));
    if (opt.scheme == AttendScheme::rope) {
        if (dims.dq % 2 != 0)
            throw UsageError(fmt::format(
                "--dq: d_k = {} is odd; --scheme rope rotates pairs of columns and needs an even "
                "d_k",
                dims.dq));
        in.rope = rope_parameters(opt.rope, dims.dq, opt.base, "--dq");
    }
    if (opt.scheme != AttendScheme::t5) return in;
    in.buckets = t5_buckets(opt.t5);
    if (opt.bias_table.empty())
        throw UsageError(fmt::format(
            "--bias-table: --scheme t5 needs its learned biases, an .npy of shape ({}, {}) "
            "(buckets, heads)",
            opt.t5.buckets, dims.heads));
    const auto B = static_cast<std::size_t>(opt.t5.buckets), H = dims.heads;
    struct stat st {};
    const std::uint64_t most = 65536 + std::uint64_t{B} * H * 8;  // header + float64 values
    if (!io::is_standard_stream(opt.bias_table) && ::stat(opt.bias_table.c_str(), &st) == 0 &&
        S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > most)
        throw UsageError(
            fmt::format("--bias-table: {} holds {} bytes; a ({}, {}) table is at most {} bytes",
                        opt.bias_table, st.st_size, B, H, most));
    const io::NpyArray a = read_npy_option("--bias-table", opt.bias_table);
    if (a.shape != std::vector<std::size_t>{B, H})
        throw UsageError(
            fmt::format("--bias-table: {} has shape {}; --buckets {} and {} head{} "
                        "need ({}, {})",
                        opt.bias_table, shape_string(a.shape), B, H, H > 1 ? "s" : "", B, H));
    in.t5_table = xt::xtensor<double, 2>::from_shape({B, H});
    std::copy(a.values.begin(), a.values.end(), in.t5_table.begin());
    return in;
}

template <class T>
PositionScheme<T>::PositionScheme(const AttendOptions& opt, const Dims& dims,
                                  const SchemeInputs& in, std::size_t n, bool bias_matrices)
    : scheme_(opt.scheme), n_(n), heads_(dims.heads), start_(opt.start) {
    if (opt.no_scale) scale_ = 1.0;
    const auto layout = layout_of(opt);
    switch (scheme_) {
        case AttendScheme::none:
            break;
        case AttendScheme::sinusoidal: {
            const xt::xtensor<double, 2> p = positional_encoding(
                n, dims.d_in, opt.base, start_,
                layout == positions::RopeLayout::split ? Layout::split : Layout::interleaved);
            p_ = xt::cast<T>(p);  // (n, d_in)
            positions_.push_back(p_);
            description_ = fmt::format("sinusoidal P (base {}, {})", opt.base, layout_name(layout));
            break;
        }
        case AttendScheme::rope: {
            rope_ = std::make_shared<const positions::Rope>(*in.rope, start_, n);
            rope_layout_ = layout;
            xt::xtensor<double, 2> angles = xt::xtensor<double, 2>::from_shape({n, dims.dq / 2});
            rope_->angles(start_, n, angles.data());  // (n, d_k / 2)
            positions_.push_back(xt::cast<T>(angles));
            description_ =
                fmt::format("rope angles (base {}, {}, scaling {})", opt.base, layout_name(layout),
                            positions::scaling_name(in.rope->scaling));
            break;
        }
        case AttendScheme::alibi: {
            slopes_ = positions::alibi_slopes(heads_);
            const positions::AlibiBias bias(heads_, n);
            for (std::size_t h = 0; bias_matrices && h < heads_; ++h) {
                xt::xtensor<double, 2> b = xt::xtensor<double, 2>::from_shape({n, n});
                bias.fill(h * n, n, b.data());  // bias[h, i, j] = -m_h |i - j|
                positions_.push_back(xt::cast<T>(b));
            }
            description_ = "alibi bias -m_h |i - j|";
            break;
        }
        case AttendScheme::t5: {
            // relative[h (2n - 1) + r + n - 1] = table[bucket(r), h], r = j - i.
            auto rel = std::make_shared<std::vector<T>>(heads_ * (2 * n - 1));
            for (std::size_t h = 0; h < heads_; ++h)
                for (std::size_t k = 0; k + 1 < 2 * n; ++k) {
                    const auto r = static_cast<std::int64_t>(k) - static_cast<std::int64_t>(n - 1);
                    const auto bucket =
                        static_cast<std::size_t>(positions::t5_bucket(r, in.buckets));
                    (*rel)[h * (2 * n - 1) + k] = static_cast<T>(in.t5_table(bucket, h));
                }
            relative_ = rel;
            for (std::size_t h = 0; bias_matrices && h < heads_; ++h) {
                xt::xtensor<T, 2> b = xt::zeros<T>({n, n});
                bias(h).add(0, 0, n, n, b.data(), n);
                positions_.push_back(std::move(b));
            }
            description_ =
                fmt::format("t5 bias table[bucket(j - i), h] ({} {} buckets, max distance {})",
                            in.buckets.bidirectional ? "bidirectional" : "causal",
                            in.buckets.num_buckets, in.buckets.max_distance);
            break;
        }
    }
}

template <class T>
xt::xtensor<T, 2> PositionScheme<T>::input(const xt::xtensor<T, 2>& x) const {
    if (scheme_ != AttendScheme::sinusoidal) return x;
    xt::xtensor<T, 2> out = x + p_;  // (n, d_in), in T as torch adds them
    return out;
}

template <class T>
xt::xtensor<T, 2> PositionScheme<T>::rotate(const xt::xtensor<T, 2>& m) const {
    if (!rope_) return m;
    const std::size_t rows = m.shape(0), d = m.shape(1);
    const xt::xtensor<double, 2> x = xt::cast<double>(m);
    xt::xtensor<double, 2> out = xt::xtensor<double, 2>::from_shape({rows, d});
    rope_->rotate_all(start_, 1, rows, rope_layout_, x.data(), out.data());
    xt::xtensor<T, 2> r = xt::cast<T>(out);
    return r;
}

template <class T>
AttentionBias<T> PositionScheme<T>::bias(std::size_t h) const {
    AttentionBias<T> b;
    if (scheme_ == AttendScheme::alibi) b.alibi_slope = slopes_.at(h);
    if (scheme_ == AttendScheme::t5) {
        const std::size_t n = n_;
        b.add = [rel = relative_, base = h * (2 * n - 1) + (n - 1)](
                    std::size_t row0, std::size_t col0, std::size_t rows, std::size_t cols, T* tile,
                    std::size_t stride) {
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < cols; ++c)  // j - i = (col0 + c) - (row0 + r)
                    tile[r * stride + c] += (*rel)[base + col0 + c - row0 - r];
        };
    }
    return b;
}

template <class T>
std::vector<HeadOptions<T>> PositionScheme<T>::head_options(const Parameters<T>& par) const {
    std::vector<HeadOptions<T>> out(heads_);
    for (std::size_t h = 0; h < heads_; ++h) {
        if (!par.biases.empty()) out[h] = par.biases[h];
        if (rope_) out[h].rotate = [this](const xt::xtensor<T, 2>& m) { return rotate(m); };
        out[h].score.scale = scale_;
        out[h].score.bias = bias(h);
    }
    return out;
}

template <class T>
SequenceRun<T> attend_sequence(const Sequence& s, const Sequence& original,
                               const std::vector<std::size_t>& p, std::vector<MaskOptions> masks,
                               const AttendOptions& opt, const Dims& dims, const SchemeInputs& in,
                               const Parameters<T>& par) {
    SequenceRun<T> run;
    run.masks = std::move(masks);
    run.scheme = std::make_shared<const PositionScheme<T>>(opt, dims, in, s.n());
    const PositionScheme<T>& scheme = *run.scheme;
    const std::vector<HeadOptions<T>> options = scheme.head_options(par);
    const auto attend = [&](const xt::xtensor<T, 2>& x, const MaskOptions& mask) {
        const xt::xtensor<T, 2> input = scheme.input(x);
        return multi_head_attention<T>(input, input, input, par.heads, par.w_out, mask, options,
                                       par.b_out);
    };
    for (std::size_t b = 0; b < s.x.size(); ++b) {
        run.x.push_back(xt::cast<T>(s.x[b]));
        run.results.push_back(attend(run.x.back(), run.masks[b]));
        if (p.empty()) continue;
        // context(X[p]) - context(X)[p]: row i against the original's row p[i].
        const xt::xtensor<T, 2> x = xt::cast<T>(original.x[b]);
        const xt::xtensor<T, 2> before = attend(x, run.masks[b]).output;
        xt::xtensor<T, 2> diff = run.results.back().output;  // (n, d_out)
        for (std::size_t i = 0; i < p.size(); ++i)
            for (std::size_t c = 0; c < diff.shape(1); ++c) diff(i, c) -= before(p[i], c);
        run.equivariance.push_back(std::move(diff));
    }
    return run;
}

template class PositionScheme<float>;
template class PositionScheme<double>;
template SequenceRun<float> attend_sequence<float>(const Sequence&, const Sequence&,
                                                   const std::vector<std::size_t>&,
                                                   std::vector<MaskOptions>, const AttendOptions&,
                                                   const Dims&, const SchemeInputs&,
                                                   const Parameters<float>&);
template SequenceRun<double> attend_sequence<double>(const Sequence&, const Sequence&,
                                                     const std::vector<std::size_t>&,
                                                     std::vector<MaskOptions>, const AttendOptions&,
                                                     const Dims&, const SchemeInputs&,
                                                     const Parameters<double>&);

}  // namespace attn::cli
