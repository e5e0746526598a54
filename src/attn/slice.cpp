#include "attn/slice.hpp"

#include <charconv>
#include <cstdint>

namespace attn {

namespace {

std::int64_t parse_index(std::string_view s, std::string_view whole) {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size())
        throw std::invalid_argument("'" + std::string(whole) +
                                    "' is not a slice A:B of whole numbers");
    return v;
}

}  // namespace

Slice parse_slice(std::string_view text, std::size_t length) {
    const auto n = static_cast<std::int64_t>(length);
    const std::string range = "accepted indices are -" + std::to_string(n) + " to " +
                              std::to_string(n) + " (A:B, half-open)";
    const auto colon = text.find(':');
    const bool single = colon == std::string_view::npos;
    const std::string_view a = single ? text : text.substr(0, colon);
    const std::string_view b = single ? std::string_view{} : text.substr(colon + 1);
    if (single && a.empty()) throw std::invalid_argument("'' is not a slice A:B of whole numbers");
    std::int64_t begin = a.empty() ? 0 : parse_index(a, text);
    std::int64_t end = single ? begin + 1 : (b.empty() ? n : parse_index(b, text));
    if (single && begin < 0) end = begin + 1 == 0 ? n : begin + 1;
    if (begin < -n || begin > n || end < -n || end > n)
        throw std::invalid_argument("'" + std::string(text) + "' is out of range; " + range);
    if (begin < 0) begin += n;
    if (end < 0) end += n;
    if (begin >= end)
        throw std::invalid_argument("'" + std::string(text) + "' selects nothing; " + range);
    return {static_cast<std::size_t>(begin), static_cast<std::size_t>(end)};
}

}  // namespace attn
