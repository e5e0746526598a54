// A partial of attn heads --partial (heads_partial.cpp writes it) read as untrusted input: an
// npz of
//   format   <U (1)          "attn heads partial 1"
//   model    <U (k)          "config=<config.json>", "tensor NAME (SHAPE)" ...
//   options  <U (m)          "--measure=M", "--layer=L,..", "--head=H,..", ...
//   layers, heads, sums, argmax, prompt_lengths, prompt_ids   float64 (<f8), checked against
//                            the config (model/head_partial.hpp); layers and heads equal to
//                            the options' --layer= and --head= lines
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/model/head_partial.hpp"

namespace attn::cli {

inline constexpr const char* kPartialFormat = "attn heads partial 1";

/// A partial's text members and its checked numbers (model/head_partial.hpp).
struct Partial : model::HeadPartial {
    std::vector<std::string> model, options;
};

/// The partial at `path`, every member checked as above. UsageError (exit 2) of one line
/// "PATH: MEMBER: what is there; what is expected" (or "PATH: not a partial of attn heads" for
/// an npz without the format member); std::system_error (exit 1) for a file that cannot be
/// read.
Partial read_partial(const std::string& path);

}  // namespace attn::cli
