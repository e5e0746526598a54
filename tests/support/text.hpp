// Searching the text a writer or a command produced, for tests.
#pragma once

#include <cstddef>
#include <string>

namespace attn::test {

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// Occurrences of `what` in text, overlapping ones included.
inline std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace attn::test
