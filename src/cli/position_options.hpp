// The options that parametrise a position scheme (rope's layout and scaling, T5's buckets),
// declared once for every subcommand that takes them, and turned into the library's
// parameters with errors that name the option.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attn/positions/rope.hpp"
#include "attn/positions/scheme.hpp"
#include "attn/positions/t5.hpp"

namespace attn::cli {

/// --rope-scaling and its parameters (Hugging Face's rope_scaling keys), --layout.
struct RopeOptions {
    positions::Layout layout = positions::Layout::split;
    positions::RopeScaling scaling = positions::RopeScaling::none;
    double factor = 1.0;
    double original_max_positions = 0.0;
    double low_freq_factor = 0.0, high_freq_factor = 0.0;
    double beta_fast = 32.0, beta_slow = 1.0;
    // Options whose presence matters: a parameter is passed only when given.
    CLI::Option* layout_opt = nullptr;
    CLI::Option *factor_opt = nullptr, *original_opt = nullptr, *low_opt = nullptr,
                *high_opt = nullptr, *beta_fast_opt = nullptr, *beta_slow_opt = nullptr;
};

/// The library's parameter names (Hugging Face's keys, which begin its messages) and the
/// options that set them: rope's base and scaling parameters, T5's buckets.
const std::vector<std::pair<std::string, std::string>>& position_key_options();

/// --layout split|interleaved (help names the default of each scheme), --rope-scaling,
/// --factor, --original-max-positions, --low-freq-factor, --high-freq-factor, --beta-fast,
/// --beta-slow.
void add_rope_options(CLI::App& app, RopeOptions& opt);

/// The parameters for head dimension d and base; UsageError naming the option (d names
/// `d_option`, e.g. "--dq") for a value rope refuses.
positions::RopeParameters rope_parameters(const RopeOptions& opt, std::size_t d, double base,
                                          const char* d_option);

/// --buckets, --max-distance and `causal_flag` (future keys share bucket 0).
struct T5Options {
    std::int64_t buckets = 32;
    std::int64_t max_distance = 128;
    bool causal = false;
};
void add_t5_options(CLI::App& app, T5Options& opt, const char* causal_flag);

/// The buckets; UsageError naming --buckets or --max-distance for values T5 refuses.
positions::T5Buckets t5_buckets(const T5Options& opt);

/// attend's positions inside attention: --scheme, --base, --start, rope's and T5's options,
/// --bias-table (T5's learned biases), --no-scale.
struct AttentionPositions {
    positions::Scheme scheme = positions::Scheme::none;
    double base = 10000.0;  // sinusoidal and rope
    std::int64_t start = 0;
    RopeOptions rope;
    T5Options t5;
    std::string bias_table;  // t5: (buckets, H) .npy
    bool no_scale = false;
};
void add_attention_positions(CLI::App& group, AttentionPositions& opt);

/// The library's scheme for a layer of H heads over rows of width d_in, queries and keys of
/// width d_k (rope: even; an odd one names d_k_option): rope's parameters, T5's buckets and
/// its bias table (buckets, H), read after its size and shape are checked. UsageError naming
/// the option (--base, --bias-table, --buckets, ...).
positions::SchemeConfig attention_scheme(const AttentionPositions& opt, std::size_t d_in,
                                         std::size_t heads, std::size_t d_k,
                                         const char* d_k_option);

}  // namespace attn::cli
