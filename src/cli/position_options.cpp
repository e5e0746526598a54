#include "cli/position_options.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "cli/enum_option.hpp"
#include "cli/errors.hpp"

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

// The library's messages begin with the parameter's name: the option that sets it.
[[noreturn]] void rethrow_named(const std::invalid_argument& e,
                                const std::vector<std::pair<std::string, std::string>>& names) {
    const std::string what = e.what();
    for (const auto& [param, option] : names)
        if (what.rfind(param + ":", 0) == 0) throw UsageError(option + what.substr(param.size()));
    throw UsageError(what);
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
    } catch (const std::invalid_argument& e) {
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
    } catch (const std::invalid_argument& e) {
        rethrow_named(e, position_key_options());
    }
    return t;
}

}  // namespace attn::cli
