#include "cli/position_options.hpp"

#include "attn/positions/parameter_error.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "cli/common_options.hpp"
#include "cli/enum_option.hpp"
#include "cli/errors.hpp"
#include "io/npy.hpp"
#include "io/output_spec.hpp"
#include "runtime/finite.hpp"
#include "runtime/shape_tuple.hpp"

namespace attn::cli {

namespace {

using positions::Layout;
using positions::RopeScaling;

const NameTable<Layout> kRopeLayouts{{"split", Layout::split},
                                     {"interleaved", Layout::interleaved}};
const NameTable<RopeScaling> kScalings{{"none", RopeScaling::none},
                                       {"linear", RopeScaling::linear},
                                       {"dynamic", RopeScaling::dynamic},
                                       {"yarn", RopeScaling::yarn},
                                       {"llama3", RopeScaling::llama3}};

// The library's parameter as the option that sets it.
[[noreturn]] void rethrow_named(const positions::ParameterError& e,
                                const std::vector<std::pair<std::string, std::string>>& names) {
    for (const auto& [param, option] : names)
        if (e.parameter == param) throw UsageError(option + ": " + e.detail);
    throw UsageError(e.what());
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& position_key_options() {
    static const std::vector<std::pair<std::string, std::string>> names{
        {"base", "--base"},
        {"factor", "--factor"},
        {"original_max_position_embeddings", "--original-max-positions"},
        {"low_freq_factor", "--low-freq-factor"},
        {"high_freq_factor", "--high-freq-factor"},
        {"beta_fast", "--beta-fast"},
        {"beta_slow", "--beta-slow"},
        {"num_buckets", "--buckets"},
        {"max_distance", "--max-distance"}};
    return names;
}

void add_rope_options(CLI::App& app, RopeOptions& opt) {
    opt.layout_opt = add_enum_option(app, "--layout", opt.layout, kRopeLayouts,
                                     "Pair layout: split (rope's default, rotate_half) or "
                                     "interleaved (sinusoidal's default, [s0 c0 s1 c1 ...])")
                         ->default_str("");
    add_enum_option(app, "--rope-scaling", opt.scaling, kScalings,
                    "Rope frequency scaling: none, linear, dynamic, yarn or llama3");
    opt.factor_opt = app.add_option("--factor", opt.factor, "Rope scaling factor F");
    opt.original_opt =
        app.add_option("--original-max-positions", opt.original_max_positions,
                       "Rope scaling's original_max_position_embeddings M (dynamic, yarn, llama3)");
    opt.low_opt =
        app.add_option("--low-freq-factor", opt.low_freq_factor, "llama3's low_freq_factor");
    opt.high_opt =
        app.add_option("--high-freq-factor", opt.high_freq_factor, "llama3's high_freq_factor");
    opt.beta_fast_opt = app.add_option("--beta-fast", opt.beta_fast, "yarn's beta_fast (32)");
    opt.beta_slow_opt = app.add_option("--beta-slow", opt.beta_slow, "yarn's beta_slow (1)");
}

positions::RopeParameters rope_parameters(const RopeOptions& opt, std::size_t d, double base,
                                          const char* d_option) {
    positions::RopeParameters p;
    p.d = d;
    p.base = base;
    p.scaling = opt.scaling;
    const auto given = [](const CLI::Option* o) { return o && o->count() > 0; };
    if (given(opt.factor_opt)) p.factor = opt.factor;
    if (given(opt.original_opt)) p.original_max_position_embeddings = opt.original_max_positions;
    if (given(opt.low_opt)) p.low_freq_factor = opt.low_freq_factor;
    if (given(opt.high_opt)) p.high_freq_factor = opt.high_freq_factor;
    if (given(opt.beta_fast_opt)) p.beta_fast = opt.beta_fast;
    if (given(opt.beta_slow_opt)) p.beta_slow = opt.beta_slow;
    try {
        positions::validate(p);
    } catch (const positions::ParameterError& e) {
        std::vector<std::pair<std::string, std::string>> names = position_key_options();
        names.emplace_back("d", d_option);
        rethrow_named(e, names);
    }
    return p;
}

void add_t5_options(CLI::App& app, T5Options& opt, const char* causal_flag) {
    app.add_option("--buckets", opt.buckets, "T5 relative-position buckets B")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30))
        ->capture_default_str();
    app.add_option("--max-distance", opt.max_distance,
                   "T5 distance D from which buckets stop growing")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
        ->capture_default_str();
    app.add_flag(causal_flag, opt.causal,
                 "T5 causal buckets: every key after the query in bucket 0 (else bidirectional)");
}

positions::T5Buckets t5_buckets(const T5Options& opt) {
    positions::T5Buckets t{opt.buckets, opt.max_distance, !opt.causal};
    try {
        positions::validate(t);
    } catch (const positions::ParameterError& e) {
        rethrow_named(e, position_key_options());
    }
    return t;
}

namespace {

const NameTable<positions::Scheme> kSchemes{{"none", positions::Scheme::none},
                                            {"sinusoidal", positions::Scheme::sinusoidal},
                                            {"rope", positions::Scheme::rope},
                                            {"alibi", positions::Scheme::alibi},
                                            {"t5", positions::Scheme::t5}};

}  // namespace

void add_attention_positions(CLI::App& g, AttentionPositions& opt) {
    add_enum_option(g, "--scheme", opt.scheme, kSchemes,
                    "Positions inside attention: none (the notebook), sinusoidal (X + P), rope "
                    "(q, k rotated), alibi or t5 (score biases)");
    g.add_option("--base", opt.base, "Base of sinusoidal's and rope's wavelengths, > 1")
        ->capture_default_str();
    g.add_option("--start", opt.start, "First position (sinusoidal, rope)")
        ->check(CLI::Range(-(std::int64_t{1} << 52), std::int64_t{1} << 52))
        ->capture_default_str();
    add_rope_options(g, opt.rope);
    add_t5_options(g, opt.t5, "--causal-bucket");
    add_file_option(g, "--bias-table", opt.bias_table,
                    "t5: the learned biases, an .npy of shape (buckets, H)");
    g.add_flag("--no-scale", opt.no_scale, "Scores omega, not omega / sqrt(d_k) (T5)");
}

positions::SchemeConfig attention_scheme(const AttentionPositions& opt, std::size_t d_in,
                                         std::size_t heads, std::size_t d_k,
                                         const char* d_k_option) {
    positions::SchemeConfig in;
    in.scheme = opt.scheme;
    in.start = opt.start;
    in.base = opt.base;
    // --layout, else split for rope and interleaved for sinusoidal
    in.layout = opt.rope.layout_opt && opt.rope.layout_opt->count() ? opt.rope.layout
                : opt.scheme == positions::Scheme::rope             ? positions::Layout::split
                                                        : positions::Layout::interleaved;
    in.hidden_size = d_in;
    in.n_heads = heads;
    if (!opt.bias_table.empty() && opt.scheme != positions::Scheme::t5)
        throw UsageError("--bias-table: T5's bias table is read with --scheme t5 only");
    if ((opt.scheme == positions::Scheme::sinusoidal || opt.scheme == positions::Scheme::rope) &&
        (!std::isfinite(opt.base) || !(opt.base > 1.0)))
        throw UsageError(fmt::format("--base: {} is not a finite number greater than 1", opt.base));
    if (opt.scheme == positions::Scheme::rope) {
        if (d_k % 2 != 0)
            throw UsageError(fmt::format(
                "{}: d_k = {} is odd; --scheme rope rotates pairs of columns and needs an even "
                "d_k",
                d_k_option, d_k));
        in.rope = rope_parameters(opt.rope, d_k, opt.base, d_k_option);
    }
    if (opt.scheme != positions::Scheme::t5) return in;
    in.buckets = t5_buckets(opt.t5);
    if (opt.bias_table.empty())
        throw UsageError(fmt::format(
            "--bias-table: --scheme t5 needs its learned biases, an .npy of shape ({}, {}) "
            "(buckets, heads)",
            opt.t5.buckets, heads));
    const auto B = static_cast<std::size_t>(opt.t5.buckets), H = heads;
    struct stat st {};
    const std::uint64_t most = 65536 + std::uint64_t{B} * H * 8;  // header + float64 values
    if (!io::is_standard_stream(opt.bias_table) && ::stat(opt.bias_table.c_str(), &st) == 0 &&
        S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > most)
        throw UsageError(
            fmt::format("--bias-table: {} holds {} bytes; a ({}, {}) table is at most {} bytes",
                        opt.bias_table, st.st_size, B, H, most));
    const io::NpyArray a =
        naming_option("--bias-table", [&] { return io::read_npy(opt.bias_table); });
    if (a.shape != std::vector<std::size_t>{B, H})
        throw UsageError(fmt::format(
            "--bias-table: {} has shape {}; --buckets {} and {} head{} "
            "need ({}, {})",
            opt.bias_table, runtime::shape_tuple(a.shape), B, H, H > 1 ? "s" : "", B, H));
    naming_option("--bias-table",
                  [&] { runtime::check_finite(a.values, a.shape, opt.bias_table); });
    in.t5_table = xt::xtensor<double, 2>::from_shape({B, H});
    std::copy(a.values.begin(), a.values.end(), in.t5_table.begin());
    return in;
}

}  // namespace attn::cli
