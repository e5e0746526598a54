// attn attend's options, typed at parsing; shared by the files that read its inputs, draw its
// parameters and describe its arrays.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "attn/embedding.hpp"
#include "attn/positions/scheme.hpp"
#include "attn/torch_random.hpp"
#include "cli/common_options.hpp"
#include "cli/position_options.hpp"

namespace attn::cli {

enum class Unknown { error, zero, random };  // a word without a vector
enum class Rng { torch };
enum class AttentionPath { automatic, direct, tiled };  // --attention

struct AttendOptions {
    std::string sentence;
    bool lowercase = false;
    bool strip_punctuation = false;
    std::int64_t vocab_size = 50000;
    std::int64_t embed_dim = 3;
    std::string embeddings;
    std::string vocab;
    Unknown unknown = Unknown::error;
    Rng rng = Rng::torch;
    std::uint64_t seed = 123;
    TorchKernel rng_kernel = TorchKernel::avx2;
    std::int64_t dq = 2;
    std::int64_t dk = 2;
    std::int64_t dv = 4;
    ProjectionInit init = ProjectionInit::rand;
    std::string wq, wk, wv, wo;
    std::int64_t heads = 1;
    bool out_proj = false;
    AttentionPath attention = AttentionPath::automatic;  // --attention (attend_streamed.hpp)
    bool causal = false;
    std::string valid_len;
    double mask_value = -1e6;
    std::string show;  // comma list of the --show table's names; "" = by the output
    std::int64_t query = 0;
    std::string input;
    // Positions (attend_positions.hpp) and projection biases.
    positions::Scheme scheme = positions::Scheme::none;
    double base = 10000.0;  // sinusoidal and rope
    std::int64_t start = 0;
    RopeOptions rope;
    T5Options t5;
    std::string bias_table;  // t5: (buckets, H) .npy
    bool no_scale = false;
    std::string permute;  // "" none, "reverse", or a comma list
    bool bias = false;
    OutputOptions out;
    // Options whose presence matters, not only their value.
    CLI::Option* sentence_opt = nullptr;
    CLI::Option* embed_dim_opt = nullptr;
    CLI::Option* dq_opt = nullptr;
    CLI::Option* dk_opt = nullptr;
    CLI::Option* dv_opt = nullptr;
    CLI::Option* mask_value_opt = nullptr;
    CLI::Option* query_opt = nullptr;
};

}  // namespace attn::cli
