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

const NameTable<positions::Scheme> kSchemes{{"none", positions::Scheme::none},
                                            {"sinusoidal", positions::Scheme::sinusoidal},
                                            {"rope", positions::Scheme::rope},
                                            {"alibi", positions::Scheme::alibi},
                                            {"t5", positions::Scheme::t5}};

// The layout of the scheme: --layout, else split for rope and interleaved for sinusoidal.
positions::Layout layout_of(const AttendOptions& opt) {
    if (opt.rope.layout_opt && opt.rope.layout_opt->count()) return opt.rope.layout;
    return opt.scheme == positions::Scheme::rope ? positions::Layout::split
                                                 : positions::Layout::interleaved;
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

positions::SchemeConfig scheme_config(const AttendOptions& opt, const Dims& dims) {
    positions::SchemeConfig in;
    in.scheme = opt.scheme;
    in.start = opt.start;
    in.base = opt.base;
    in.layout = layout_of(opt);
    in.hidden_size = dims.d_in;
    in.n_heads = dims.heads;
    if (!opt.bias_table.empty() && opt.scheme != positions::Scheme::t5)
        throw UsageError("--bias-table: T5's bias table is read with --scheme t5 only");
    if ((opt.scheme == positions::Scheme::sinusoidal || opt.scheme == positions::Scheme::rope) &&
        (!std::isfinite(opt.base) || !(opt.base > 1.0)))
        throw UsageError(fmt::format("--base: {} is not a finite number greater than 1", opt.base));
    if (opt.scheme == positions::Scheme::rope) {
        if (dims.dq % 2 != 0)
            throw UsageError(fmt::format(
                "--dq: d_k = {} is odd; --scheme rope rotates pairs of columns and needs an even "
                "d_k",
                dims.dq));
        in.rope = rope_parameters(opt.rope, dims.dq, opt.base, "--dq");
    }
    if (opt.scheme != positions::Scheme::t5) return in;
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

}  // namespace attn::cli
