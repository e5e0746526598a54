// What a call throws, for tests that check messages.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace attn::test {

/// The message of the std::invalid_argument that f throws ("" if it throws nothing).
inline std::string invalid_argument_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace attn::test
