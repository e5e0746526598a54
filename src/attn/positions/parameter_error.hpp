// The error of a position scheme's parameter out of range, typed so that a caller names its
// own option (--factor) or config key (rope_scaling.factor) from `parameter` without reading
// the message.
#pragma once

#include <stdexcept>
#include <string>

namespace attn::positions {

/// what(): "<parameter>: <detail>"; parameter is Hugging Face's key name (factor, base, d,
/// num_buckets, max_distance, heads, n ...).
struct ParameterError : std::invalid_argument {
    ParameterError(std::string parameter_name, std::string what_is_wrong)
        : std::invalid_argument(parameter_name + ": " + what_is_wrong),
          parameter(std::move(parameter_name)),
          detail(std::move(what_is_wrong)) {}
    std::string parameter;
    std::string detail;
};

}  // namespace attn::positions
