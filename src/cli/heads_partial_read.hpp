// A partial of attn heads --partial (heads_partial.cpp writes it) read as untrusted input: an
// npz of
//   format   <U (1)          "attn heads partial 1"
//   model    <U (k)          "config=<config.json>", "tensor NAME (SHAPE)" ...
//   options  <U (m)          "--measure=M", "--layer=L,..", "--head=H,..", ...
//   layers   f8 (L)          increasing, < config.json's layers; = the --layer= line
//   heads    f8 (H)          increasing, < config.json's heads;  = the --head= line
//   sums     f8 (L H, 23)    counts (columns 3-5, 9-11, 18, 22) whole >= 0 below 2^53; sums of
//                            weights (rows, plain, mul, sink, self, entropy) finite >= 0; abs
//                            finite; prompts (18) = P; queries (22) = sum over prompts of n - 1
//                            (causal) or n for n >= 2 (bidirectional)
//   argmax   f8 (L H, W)     counts, W = 2 max(n) - 1 (1 for P = 0), each row adding up to
//                            its head's queries
//   prompt_lengths f8 (P)    whole >= 1, adding up to the ids' count
//   prompt_ids     f8 (N)    whole, 0 <= id < config.json's vocab_size
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn::cli {

inline constexpr const char* kPartialFormat = "attn heads partial 1";
inline constexpr std::size_t kPartialSums = 23;

struct Partial {
    std::vector<std::string> model, options;
    std::vector<std::size_t> layers, heads;
    std::vector<double> sums;    // (L H, 23), row-major
    std::vector<double> argmax;  // (L H, width)
    std::size_t width = 1;       // 2 R + 1, R the longest prompt's n - 1
    std::vector<std::vector<std::int64_t>> prompts;
};

/// The partial at `path`, every member checked as above. UsageError (exit 2) of one line
/// "PATH: MEMBER: what is there; what is expected" (or "PATH: not a partial of attn heads" for
/// an npz without the format member); std::system_error (exit 1) for a file that cannot be
/// read.
Partial read_partial(const std::string& path);

}  // namespace attn::cli
