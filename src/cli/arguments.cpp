#include "cli/arguments.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string_view>
#include <system_error>
#include <utility>

namespace attn::cli {

namespace {

std::int64_t parse_index(std::string_view s, std::string_view whole) {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size())
        throw std::invalid_argument("'" + std::string(whole) +
                                    "' is not a slice A:B of whole numbers");
    return v;
}

std::uint64_t magnitude(std::int64_t v) {
    return v < 0 ? std::uint64_t(0) - std::uint64_t(v) : std::uint64_t(v);
}

std::int64_t parse_int(std::string_view text, std::string_view whole) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || ptr != end)
        throw std::invalid_argument("'" + std::string(whole) +
                                    "' is not an offset, a list 1,5,10 or a range A:B[:STEP]");
    if (magnitude(v) > (std::uint64_t{1} << 52))
        throw std::invalid_argument(std::to_string(v) + " is beyond +-2^52");
    return v;
}

}  // namespace

Slice parse_slice(std::string_view text, std::size_t length) {
    const auto n = static_cast<std::int64_t>(length);
    const std::string range = fmt::format(
        "accepted: an index {}..{} (-1 the last) or a range A:B with A, B in {}..{} "
        "(B excluded)",
        -n, n - 1, -n, n);
    const auto colon = text.find(':');
    const bool single = colon == std::string_view::npos;
    const std::string_view a = single ? text : text.substr(0, colon);
    std::string_view b = single ? std::string_view{} : text.substr(colon + 1);
    std::int64_t step = 1;
    if (const auto second = b.find(':'); second != std::string_view::npos) {
        const std::string_view s = b.substr(second + 1);
        b = b.substr(0, second);
        if (!s.empty()) step = parse_index(s, text);
        if (step < 1)
            throw std::invalid_argument("'" + std::string(text) +
                                        "': STEP must be 1 or more (A:B:STEP)");
    }
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
    return {static_cast<std::size_t>(begin), static_cast<std::size_t>(end),
            static_cast<std::size_t>(step)};
}

std::vector<std::string> split_list(std::string_view text) {
    std::vector<std::string> out;
    while (true) {
        const std::size_t comma = text.find(',');
        out.emplace_back(text.substr(0, comma));
        if (comma == std::string_view::npos) return out;
        text.remove_prefix(comma + 1);
    }
}

std::optional<std::size_t> parse_index(std::string_view field) {
    std::size_t v = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (field.empty() || ec != std::errc() || end != field.data() + field.size())
        return std::nullopt;
    return v;
}

std::vector<std::size_t> parse_indices(std::string_view text, std::string_view what) {
    std::vector<std::size_t> out;
    for (const std::string& f : split_list(text)) {
        const auto index = parse_index(f);
        if (!index) throw std::invalid_argument("'" + f + "' is not " + std::string(what));
        out.push_back(*index);
    }
    return out;
}

std::vector<std::int64_t> parse_token_ids(std::string_view text, std::size_t vocab) {
    const std::string what = "a token id of this model (whole numbers 0.." +
                             std::to_string(vocab - 1) + ", comma-separated)";
    std::vector<std::int64_t> ids;
    for (const std::string& f : split_list(text)) {
        const auto id = parse_index(f);
        if (!id || *id >= vocab) throw std::invalid_argument("'" + f + "' is not " + what);
        ids.push_back(static_cast<std::int64_t>(*id));
    }
    return ids;
}

std::vector<std::int64_t> parse_offsets(std::string_view text, std::size_t max_count) {
    std::vector<std::int64_t> offsets;
    const std::string_view whole = text;
    while (true) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        const std::size_t c1 = item.find(':');
        if (c1 == std::string_view::npos) {
            offsets.push_back(parse_int(item, whole));
        } else {
            const std::size_t c2 = item.find(':', c1 + 1);
            const std::int64_t a = parse_int(item.substr(0, c1), whole);
            const std::int64_t b = parse_int(item.substr(c1 + 1, c2 - c1 - 1), whole);
            const std::int64_t step = c2 == std::string_view::npos
                                          ? (b >= a ? 1 : -1)
                                          : parse_int(item.substr(c2 + 1), whole);
            if (step == 0) throw std::invalid_argument("'" + std::string(item) + "': STEP is 0");
            if ((b - a) / step < 0)
                throw std::invalid_argument("'" + std::string(item) +
                                            "' is empty: STEP goes away from B");
            const std::uint64_t count = magnitude((b - a) / step) + 1;
            if (count > max_count || offsets.size() + count > max_count)
                throw std::invalid_argument("more than " + std::to_string(max_count) + " offsets");
            for (std::int64_t v = a; step > 0 ? v <= b : v >= b; v += step) offsets.push_back(v);
        }
        if (offsets.size() > max_count)
            throw std::invalid_argument("more than " + std::to_string(max_count) + " offsets");
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    return offsets;
}

namespace {

[[noreturn]] void sweep_error(std::string_view spec, const std::string& problem) {
    throw std::invalid_argument("sweep '" + std::string(spec) + "': " + problem);
}

// A decimal integer >= 1, the whole of `text`.
std::uint64_t parse_value(std::string_view spec, std::string_view text, std::string_view role) {
    if (text.empty()) sweep_error(spec, "empty " + std::string(role));
    if (text.front() == '-')
        sweep_error(spec, std::string(role) + " '" + std::string(text) + "' is negative");
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range)
        sweep_error(spec, std::string(role) + " '" + std::string(text) + "' is larger than 2^64-1");
    if (ec != std::errc{} || end != text.data() + text.size())
        sweep_error(spec,
                    std::string(role) + " '" + std::string(text) + "' is not a decimal integer");
    if (value == 0) sweep_error(spec, std::string(role) + " is 0; values must be at least 1");
    return value;
}

void push_point(std::string_view spec, std::vector<std::uint64_t>& values, std::uint64_t value,
                std::size_t max_points) {
    if (values.size() == max_points)
        sweep_error(spec, "more than " + std::to_string(max_points) + " points");
    values.push_back(value);
}

}  // namespace

const char* size_variable_name(SizeVariable v) {
    constexpr const char* kNames[] = {"n", "d", "k", "r"};
    return kNames[static_cast<int>(v)];
}

Sweep parse_sweep(std::string_view spec, std::size_t max_points) {
    const std::size_t eq = spec.find('=');
    if (eq == std::string_view::npos)
        sweep_error(spec, "expected <var>=<values>, e.g. n=16:65536:x2 or n=16,32,64");
    Sweep sweep;
    const std::string_view name = spec.substr(0, eq);
    bool known = false;
    for (SizeVariable v : {SizeVariable::n, SizeVariable::d, SizeVariable::k, SizeVariable::r})
        if (name == size_variable_name(v)) {
            sweep.variable = v;
            known = true;
        }
    if (!known)
        sweep_error(spec, "unknown variable '" + std::string(name) + "' (known: n, d, k, r)");
    const std::string_view body = spec.substr(eq + 1);
    if (body.empty()) sweep_error(spec, "no values after '='");

    if (body.find(':') == std::string_view::npos) {  // plain list
        std::size_t pos = 0;
        while (true) {
            const std::size_t comma = body.find(',', pos);
            const std::string_view item = body.substr(pos, comma - pos);
            push_point(spec, sweep.values, parse_value(spec, item, "value"), max_points);
            if (comma == std::string_view::npos) break;
            pos = comma + 1;
        }
        return sweep;
    }

    // start:stop:step
    const std::size_t c1 = body.find(':');
    const std::size_t c2 = body.find(':', c1 + 1);
    if (c2 == std::string_view::npos || body.find(':', c2 + 1) != std::string_view::npos)
        sweep_error(spec, "a range is start:stop:xF or start:stop:+S");
    if (body.find(',') != std::string_view::npos)
        sweep_error(spec, "a range and a list cannot be mixed");
    const std::uint64_t start = parse_value(spec, body.substr(0, c1), "start");
    const std::uint64_t stop = parse_value(spec, body.substr(c1 + 1, c2 - c1 - 1), "stop");
    const std::string_view step = body.substr(c2 + 1);
    if (step.empty() || (step.front() != 'x' && step.front() != '+'))
        sweep_error(spec, "step '" + std::string(step) + "' must be xF (multiply) or +S (add)");
    const bool multiply = step.front() == 'x';
    const std::uint64_t by = parse_value(spec, step.substr(1), multiply ? "factor" : "step");
    if (multiply && by == 1) sweep_error(spec, "factor x1 never advances; use x2 or more");
    if (stop < start)
        sweep_error(spec, "empty range: stop " + std::to_string(stop) + " < start " +
                              std::to_string(start));

    std::uint64_t value = start;
    while (true) {
        push_point(spec, sweep.values, value, max_points);
        std::uint64_t next = 0;
        const bool overflow = multiply ? __builtin_mul_overflow(value, by, &next)
                                       : __builtin_add_overflow(value, by, &next);
        if (overflow || next > stop) break;
        value = next;
    }
    return sweep;
}

std::optional<std::string> whole_number_text(std::string_view text) {
    std::size_t k = 0;
    const bool negative = k < text.size() && text[k] == '-';
    if (k < text.size() && (text[k] == '-' || text[k] == '+')) ++k;
    std::string digits;  // the mantissa's digits, point removed
    std::int64_t exponent = 0;
    bool any = false;
    for (; k < text.size() && text[k] >= '0' && text[k] <= '9'; ++k) digits += text[k], any = true;
    if (k < text.size() && text[k] == '.')
        for (++k; k < text.size() && text[k] >= '0' && text[k] <= '9'; ++k)
            digits += text[k], --exponent, any = true;
    if (!any) return std::nullopt;
    if (k < text.size() && (text[k] == 'e' || text[k] == 'E')) {
        ++k;
        const bool minus = k < text.size() && text[k] == '-';
        if (k < text.size() && (text[k] == '-' || text[k] == '+')) ++k;
        std::int64_t e = 0;
        const std::size_t first = k;
        for (; k < text.size() && text[k] >= '0' && text[k] <= '9'; ++k)
            e = std::min<std::int64_t>(e * 10 + (text[k] - '0'), 100000);
        if (k == first) return std::nullopt;
        exponent += minus ? -e : e;
    }
    if (k != text.size()) return std::nullopt;
    // value = digits * 10^exponent
    digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
    if (digits.empty()) return std::string("0");
    for (; exponent < 0; ++exponent) {
        if (digits.back() != '0') return std::nullopt;
        digits.pop_back();
    }
    digits.append(static_cast<std::size_t>(std::min<std::int64_t>(
                      exponent, std::max<std::int64_t>(0, 64 - std::int64_t(digits.size())))),
                  '0');
    return negative ? "-" + digits : digits;
}

std::pair<int, int> parse_picture_size(std::string_view text) {
    const std::string accepted =
        "; give WxH, e.g. 1600x900, each 1 to " + std::to_string(kMaxPictureSide) + " pixels";
    const auto x = text.find_first_of("xX");
    if (x == std::string_view::npos)
        throw std::invalid_argument("'" + std::string(text) + "' is not a size" + accepted);
    int side[2] = {0, 0};
    const std::string_view parts[2] = {text.substr(0, x), text.substr(x + 1)};
    for (int k = 0; k < 2; ++k) {
        const auto [ptr, ec] =
            std::from_chars(parts[k].data(), parts[k].data() + parts[k].size(), side[k]);
        if (parts[k].empty() || ptr != parts[k].data() + parts[k].size() ||
            (ec != std::errc() && ec != std::errc::result_out_of_range))
            throw std::invalid_argument("'" + std::string(text) + "' is not a size" + accepted);
        if (ec != std::errc() || side[k] < 1 || side[k] > kMaxPictureSide)
            throw std::invalid_argument("'" + std::string(text) + "' is out of range" + accepted);
    }
    return {side[0], side[1]};
}

std::pair<double, double> parse_range(std::string_view text) {
    const std::string accepted = "; give LO:HI, two finite numbers with LO < HI, e.g. -1:1";
    const auto colon = text.find(':', text.empty() || text[0] != ':' ? 0 : 1);
    if (colon == std::string_view::npos)
        throw std::invalid_argument("'" + std::string(text) + "' is not a range" + accepted);
    double v[2] = {0, 0};
    const std::string parts[2] = {std::string(text.substr(0, colon)),
                                  std::string(text.substr(colon + 1))};
    for (int k = 0; k < 2; ++k) {
        char* end = nullptr;
        v[k] = std::strtod(parts[k].c_str(), &end);
        if (parts[k].empty() || *end != '\0' || !std::isfinite(v[k]))
            throw std::invalid_argument("'" + std::string(text) + "' is not a range" + accepted);
    }
    if (!(v[0] < v[1]))
        throw std::invalid_argument("'" + std::string(text) + "' is empty" + accepted);
    return {v[0], v[1]};
}

std::uint64_t parse_seed(std::string_view raw) {
    const std::optional<std::string> whole = whole_number_text(raw);
    const bool plus = !raw.empty() && raw.front() == '+';
    const std::string_view text = whole && !plus ? std::string_view(*whole) : raw;
    const char* first = text.data();
    const char* last = first + text.size();
    std::uint64_t value = 0;
    std::errc ec{};
    const char* ptr = nullptr;
    if (!text.empty() && text.front() == '-') {
        std::int64_t negative = 0;
        const auto r = std::from_chars(first, last, negative);
        ec = r.ec;
        ptr = r.ptr;
        value = static_cast<std::uint64_t>(negative);  // modulo 2^64, as torch.manual_seed
    } else {
        const auto r = std::from_chars(first, last, value);
        ec = r.ec;
        ptr = r.ptr;
    }
    if (text.empty() || ptr != last || (ec != std::errc() && ec != std::errc::result_out_of_range))
        throw std::invalid_argument("'" + std::string(raw) +
                                    "' is not a whole number; seeds are -2^63 to 2^64-1");
    if (ec == std::errc::result_out_of_range)
        throw std::invalid_argument(
            std::string(raw) + " is out of range; seeds are -2^63 to 2^64-1, as torch.manual_seed");
    return value;
}

std::uint64_t parse_size(std::string_view text) {
    const std::string whole(text);
    std::size_t pos = 0;
    double value = 0;
    try {
        value = std::stod(whole, &pos);
    } catch (const std::exception&) {
        pos = 0;
    }
    // the unit suffixes and their bytes; none: bytes
    constexpr std::pair<std::string_view, double> kUnits[]{{"", 1.0},
                                                           {"K", 1024.0},
                                                           {"k", 1024.0},
                                                           {"M", 1024.0 * 1024},
                                                           {"G", 1024.0 * 1024 * 1024},
                                                           {"T", 1024.0 * 1024 * 1024 * 1024}};
    const auto unit = std::find_if(std::begin(kUnits), std::end(kUnits),
                                   [&](const auto& u) { return u.first == text.substr(pos); });
    const double scale = unit == std::end(kUnits) ? 1 : unit->second;
    if (unit == std::end(kUnits)) pos = 0;
    if (pos == 0 || !(value * scale >= 1) || value * scale > 1.8e19)
        throw std::invalid_argument(
            "'" + whole + "' is not a size; use bytes or a number with K, M, G or T (e.g. 4G)");
    return static_cast<std::uint64_t>(value * scale);
}

}  // namespace attn::cli
