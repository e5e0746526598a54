#include "io/npy_strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>

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

namespace {

/// The header dict of an .npy file (versions 1.0 to 3.0) and the offset of its data.
std::pair<std::string_view, std::size_t> npy_header(std::string_view npy, const std::string& name) {
    if (npy.size() < kPreambleV1 || npy.substr(0, kMagic.size()) != kMagic)
        throw std::invalid_argument(name + ": not an .npy file");
    const auto byte = [&](std::size_t k) {
        return static_cast<std::size_t>(static_cast<unsigned char>(npy[k]));
    };
    const std::size_t major = byte(6);
    std::size_t length = 0, start = 0;
    if (major == 1) {
        length = byte(8) | byte(9) << 8;
        start = kPreambleV1;
    } else if ((major == 2 || major == 3) && npy.size() >= kPreambleV2) {
        length = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
        start = kPreambleV2;
    } else {
        throw std::invalid_argument(name + ": unknown .npy version");
    }
    if (length > npy.size() - start) throw std::invalid_argument(name + ": header past the end");
    return {npy.substr(start, length), start + length};
}

}  // namespace

bool is_npy_strings(std::string_view npy) {
    try {
        return npy_header(npy, "").first.find("'descr': '<U") != std::string_view::npos;
    } catch (const std::invalid_argument&) {
        return false;
    }
}

std::vector<std::string> read_npy_strings(std::string_view npy, const std::string& name) {
    const auto [header, start] = npy_header(npy, name);
    std::size_t width = 0, count = 0;
    const auto number_after = [&](std::string_view key, std::size_t& out) {
        const std::size_t at = header.find(key);
        if (at == std::string_view::npos) return false;
        std::size_t k = at + key.size();
        if (k >= header.size() || header[k] < '0' || header[k] > '9') return false;
        out = 0;
        for (; k < header.size() && header[k] >= '0' && header[k] <= '9'; ++k)
            out = out * 10 + static_cast<std::size_t>(header[k] - '0');
        return header.substr(k, key == "'shape': (" ? 2 : 1) ==
               (key == "'shape': (" ? std::string_view(",)") : std::string_view("'"));
    };
    if (!number_after("'descr': '<U", width) || width == 0 ||
        header.find("'fortran_order': False") == std::string_view::npos ||
        !number_after("'shape': (", count))
        throw std::invalid_argument(name + ": not a 1-D array of text ('<U')");
    if (count > (npy.size() - start) / (4 * width) || npy.size() - start != 4 * width * count)
        throw std::invalid_argument(
            fmt::format("{}: {} strings of {} code points need {} bytes, {} given", name, count,
                        width, 4 * width * count, npy.size() - start));
    std::vector<std::string> out(count);
    const char* p = npy.data() + start;
    for (std::string& s : out)
        for (std::size_t k = 0; k < width; ++k, p += 4) {
            const char32_t c = static_cast<char32_t>(static_cast<unsigned char>(p[0])) |
                               static_cast<char32_t>(static_cast<unsigned char>(p[1])) << 8 |
                               static_cast<char32_t>(static_cast<unsigned char>(p[2])) << 16 |
                               static_cast<char32_t>(static_cast<unsigned char>(p[3])) << 24;
            if (c == 0) continue;  // numpy's padding
            if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
                throw std::invalid_argument(
                    fmt::format("{}: code point {:#x}", name, static_cast<std::uint32_t>(c)));
            if (c < 0x80) {
                s += static_cast<char>(c);
            } else if (c < 0x800) {
                s += static_cast<char>(0xC0 | (c >> 6));
                s += static_cast<char>(0x80 | (c & 0x3F));
            } else if (c < 0x10000) {
                s += static_cast<char>(0xE0 | (c >> 12));
                s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
                s += static_cast<char>(0x80 | (c & 0x3F));
            } else {
                s += static_cast<char>(0xF0 | (c >> 18));
                s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
                s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
                s += static_cast<char>(0x80 | (c & 0x3F));
            }
        }
    return out;
}

}  // namespace attn::io
