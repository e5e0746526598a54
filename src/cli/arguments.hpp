// The small grammars of option values, parsed into numbers before anything is computed:
// comma lists, // slices of an axis (encode --columns), lists and ranges of offsets (rotate
// --offset), sweeps over one size (complexity --sweep) and sizes in bytes (--max-memory). Errors
// are std::invalid_argument saying what is wrong and what is accepted, without the option's name:
// the caller adds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn::cli {

// ---- comma lists (--show, --permute, --valid-len, ...)

/// The fields of a comma list in order, empty ones kept: "a,,b" -> a, "", b; "" -> one "".
std::vector<std::string> split_list(std::string_view text);
/// A field that is a non-negative integer (digits only), else nullopt ("", "-1", "3x").
std::optional<std::size_t> parse_index(std::string_view field);
/// A comma list of non-negative integers ("3,0,2"), in order, repeats kept: for a field that is
/// not one, std::invalid_argument "'<field>' is not <what>".
std::vector<std::size_t> parse_indices(std::string_view text, std::string_view what);
/// A comma list of token ids below vocab ("50256,464"), in order: parse_indices with every id
/// also < vocab; std::invalid_argument "'<field>' is not a token id of this model (whole numbers
/// 0..vocab-1, comma-separated)".
std::vector<std::int64_t> parse_token_ids(std::string_view text, std::size_t vocab);

// ---- Python-style half-open slices "A:B" over an axis of a given length

/// begin, begin + step, ... while < end, after normalization.
struct Slice {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t step = 1;
    std::size_t size() const { return (end - begin + step - 1) / step; }
    std::size_t operator[](std::size_t k) const { return begin + k * step; }
};

/// Parses "A:B", "A:", ":B", ":", "A:B:STEP" (any of A, B, STEP may be left out, e.g.
/// "::2") or "A" (one index) against an axis of `length`.
/// Negative A or B count from the end, as in Python; STEP is 1 or more. Unlike Python, an index
/// outside
/// [-length, length] or an empty result is an error (std::invalid_argument saying the
/// accepted range), since silently printing nothing helps nobody.
Slice parse_slice(std::string_view text, std::size_t length);

// ---- offsets
/// Offsets: "5", "-3", "1,5,10", "A:B" or "A:B:STEP" (B included when reached:
/// 1:10 is 1..10, 10:1:-3 is 10 7 4 1), and comma lists of these. At most max_count offsets.
/// std::invalid_argument with the reason otherwise.
std::vector<std::int64_t> parse_offsets(std::string_view text, std::size_t max_count);

// ---- sweeps
/// The sizes a sweep can vary: positions n, width d, kernel k, neighborhood r.
enum class SizeVariable { n, d, k, r };
/// "n", "d", "k" or "r", as a sweep writes it.
const char* size_variable_name(SizeVariable v);

/// A sweep over one size: the variable and its values in the given order.
struct Sweep {
    SizeVariable variable = SizeVariable::n;
    std::vector<std::uint64_t> values;
};

/// Parses "<var>=<values>", var one of n, d, k, r:
///   n=16:65536:x2    start:stop:xF  start, start*F, ... while <= stop (F >= 2)
///   n=16:256:+16     start:stop:+S  start, start+S, ... while <= stop (S >= 1)
///   n=16,32,64       a plain list (one value is a list of one)
/// stop is included when the steps land on it. Values are decimal integers >= 1 without
/// sign or spaces. Throws std::invalid_argument naming the problem for: bad syntax, an
/// unknown variable, a zero, a negative number, a value beyond 2^64-1, stop < start
/// (empty range), and more than max_points values.
Sweep parse_sweep(std::string_view spec, std::size_t max_points = 10000);

// ---- whole numbers

/// Every integer option's grammar: decimal digits with an optional sign, point and exponent,
/// whose value is whole ("1e6", "2.5e3", "120e-1", "-3"). Returns the value as plain digits
/// ("1000000"), which the option then range-checks; nullopt for text that is not such a number
/// or not whole ("1.5", "1e-3", "0x10"). Exponents beyond the 64-bit range still give digits
/// (at most 64 of them), so that the range check says "out of range".
std::optional<std::string> whole_number_text(std::string_view text);

// ---- pictures

/// A picture's size "WxH" (x or X), each a whole number of pixels from
/// 1 to kMaxPictureSide. std::invalid_argument saying what is accepted otherwise.
constexpr int kMaxPictureSide = 16384;
std::pair<int, int> parse_picture_size(std::string_view text);

/// A colour range "LO:HI" of finite numbers with LO < HI (negative numbers and exponents as
/// C's strtod reads them: "-1:1", "0:1e-3"). std::invalid_argument otherwise.
std::pair<double, double> parse_range(std::string_view text);

// ---- seeds

/// A seed as torch.manual_seed takes it: a whole number from -2^63 to 2^64-1, negative ones
/// wrapped modulo 2^64 as torch wraps them (-1 is 2^64-1), in whole_number_text's grammar
/// ("1e3"). std::invalid_argument otherwise.
std::uint64_t parse_seed(std::string_view text);

// ---- sizes in bytes

/// "4G", "512M", "1.5K", "123456": bytes, or a number with K (k), M, G or T, powers of 1024,
/// rounded down to whole bytes. Throws std::invalid_argument for anything else, for a size
/// below 1 byte and for one beyond about 1.8e19 bytes.
std::uint64_t parse_size(std::string_view text);

}  // namespace attn::cli
