#include "io/npy_strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "io/npy_format.hpp"

namespace attn::io {

using namespace npy_detail;

std::u32string utf8_code_points(const std::string& text) {
    std::u32string out;
    for (std::size_t k = 0; k < text.size();) {
        const auto b = static_cast<unsigned char>(text[k]);
        const std::size_t len = b < 0x80         ? 1
                                : (b >> 5) == 6  ? 2
                                : (b >> 4) == 14 ? 3
                                : (b >> 3) == 30 ? 4
                                                 : 0;
        if (len == 0 || k + len > text.size())
            throw std::invalid_argument(fmt::format("byte {} is not UTF-8", k));
        char32_t c = len == 1 ? b : b & (0x7F >> len);
        for (std::size_t j = 1; j < len; ++j) {
            const auto t = static_cast<unsigned char>(text[k + j]);
            if ((t & 0xC0) != 0x80)
                throw std::invalid_argument(fmt::format("byte {} is not UTF-8", k));
            c = (c << 6) | (t & 0x3F);
        }
        constexpr char32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
        if (c < kLeast[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            throw std::invalid_argument(fmt::format("byte {} is not UTF-8", k));
        out.push_back(c);
        k += len;
    }
    return out;
}

std::string npy_string_array(const std::vector<std::string>& values) {
    std::vector<std::u32string> points;
    std::size_t width = 1;
    for (const std::string& v : values) {
        points.push_back(utf8_code_points(v));
        width = std::max(width, points.back().size());
    }
    // numpy 1.24's header (as npy_header in npy.cpp): the dict, spare spaces for the first
    // axis to grow to 21 digits, padded with spaces and '\n' to a multiple of 64.
    std::string dict = fmt::format("{{'descr': '<U{}', 'fortran_order': False, 'shape': ({},), }}",
                                   width, values.size());
    dict.append(kGrowthDigits - std::min(kGrowthDigits, fmt::formatted_size("{}", values.size())),
                ' ');
    const std::size_t hlen = dict.size() + 1;
    const std::size_t padded = hlen + kAlign - (kPreambleV1 + hlen) % kAlign;
    if (padded > 0xFFFFu) throw std::invalid_argument("npy: header too long");
    std::string out(kMagic);
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(padded & 0xFFu);
    out += static_cast<char>(padded >> 8);
    out += dict;
    out.append(padded - hlen, ' ');
    out += '\n';
    out.reserve(out.size() + 4 * width * values.size());
    for (const std::u32string& p : points)
        for (std::size_t k = 0; k < width; ++k) {
            const char32_t c = k < p.size() ? p[k] : 0;
            for (int b = 0; b < 4; ++b) out += static_cast<char>((c >> (8 * b)) & 0xFFu);
        }
    return out;
}

}  // namespace attn::io
