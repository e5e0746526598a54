// A partial of attn heads: the heads' sums over a set of prompts, as numbers that another run's
// can be added to (attn merge). Its arrays, checked here against the model they came from as
// untrusted input (the reader of the file names it):
//   layers   (L)             increasing, < the model's layers
//   heads    (H)             increasing, < the model's heads
//   sums     (L H, 23)       pack_head_sums per (layer, head): counts (columns 3-5, 9-11, 18,
//                            22) whole >= 0 below 2^53; sums of weights (rows, plain, sink,
//                            self, entropy) finite >= 0, mul's too or NaN (0/0 of a prompt
//                            that keeps no weight); abs finite; prompts (18) = P; queries (22)
//                            = sum over prompts of n - 1 (causal) or n for n >= 2
//   argmax   (L H, W)        counts, W = 2 max(n) - 1 (1 for P = 0), each row adding up to
//                            its head's queries
//   prompt_lengths (P)       whole >= 1, adding up to the ids' count
//   prompt_ids     (N)       whole, 0 <= id < vocab_size
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/model/config.hpp"
#include "attn/model/head_scores.hpp"

namespace attn::model {

inline constexpr std::size_t kPartialSums = 23;

/// A head's sums as sums' row: rows[3], rows_queries[3], plain[3], plain_queries[3], mul[3],
/// abs[3], prompts, sink, self, entropy, queries; and back, with its argmax row (width).
std::array<double, kPartialSums> pack_head_sums(const HeadSums& s);
HeadSums unpack_head_sums(const double* sums, const double* argmax, std::size_t width);

/// One array as read: its shape and its values as float64, row-major.
struct PartialArray {
    std::vector<std::size_t> shape;
    std::vector<double> values;
};

/// The number arrays of a partial, as read.
struct PartialArrays {
    PartialArray layers, heads, sums, argmax, prompt_lengths, prompt_ids;
};

/// A partial's arrays, checked.
struct HeadPartial {
    std::vector<std::size_t> layers, heads;
    std::vector<double> sums;    // (L H, 23), row-major
    std::vector<double> argmax;  // (L H, width)
    std::size_t width = 1;       // 2 R + 1, R the longest prompt's n - 1
    std::vector<std::vector<std::int64_t>> prompts;
};

/// What is wrong with one array: its name (layers, ..., prompt_ids) and "what is there; what is
/// expected".
struct PartialError : std::invalid_argument {
    PartialError(std::string member, const std::string& what)
        : std::invalid_argument(what), member(std::move(member)) {}
    std::string member;
};

/// layers or heads (`member`): (K,) whole numbers increasing within 0 .. count - 1;
/// PartialError otherwise.
std::vector<std::size_t> partial_indices(const char* member, const PartialArray& a,
                                         std::size_t count);

/// a checked as above against c (its layers, heads, vocab_size, causal); PartialError naming
/// the first array that is not so.
HeadPartial check_head_partial(const PartialArrays& a, const ModelConfig& c);

}  // namespace attn::model
