#include "io/npy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <set>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "io/input_file.hpp"
#include "io/npy_format.hpp"
#include "runtime/memory_budget.hpp"
#include "runtime/shape_tuple.hpp"

namespace attn::io {

using namespace npy_detail;

// ---- reading -------------------------------------------------------------------------

namespace {

[[noreturn]] void fail(const std::string& name, std::string_view field, const std::string& what) {
    throw std::invalid_argument(fmt::format("{}: {}: {}", name, field, what));
}

// Reads up to size bytes; fewer only at end of stream.
std::size_t read_up_to(std::istream& in, char* dst, std::size_t size, const std::string& name) {
    in.read(dst, static_cast<std::streamsize>(size));
    if (in.bad()) throw std::system_error(std::make_error_code(std::errc::io_error), name);
    return static_cast<std::size_t>(in.gcount());
}

// One value of the header dict. Tuples keep their elements' text; shape checks them.
struct Value {
    enum class Kind { string, boolean, tuple, other } kind = Kind::other;
    std::string text;  // the literal as written (string contents for Kind::string)
    bool flag = false;
    std::vector<std::string> elements;
};

// Parses the subset of Python literal syntax a .npy header uses:
//   { 'key': value, ... }   values: 'str' "str" True False (int, ...) ints (an old 'L' suffix ok)
class HeaderParser {
  public:
    HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

    std::vector<std::pair<std::string, Value>> parse_dict() {
        std::vector<std::pair<std::string, Value>> items;
        skip_ws();
        expect('{', "the header dict must start with '{'");
        skip_ws();
        while (peek() != '}') {
            if (peek() != '\'' && peek() != '"') syntax("expected a quoted key");
            std::string key = parse_string();
            skip_ws();
            expect(':', fmt::format("expected ':' after key '{}'", key));
            skip_ws();
            Value v = parse_value(key);
            items.emplace_back(std::move(key), std::move(v));
            skip_ws();
            if (peek() == ',') {
                ++pos_;
                skip_ws();
            } else if (peek() != '}') {
                syntax("expected ',' or '}'");
            }
        }
        ++pos_;
        skip_ws();
        if (pos_ != s_.size()) syntax("unexpected text after the closing '}'");
        return items;
    }

  private:
    char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
    void skip_ws() {
        while (pos_ < s_.size() &&
               (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
            ++pos_;
    }
    [[noreturn]] void syntax(const std::string& what) const {
        const std::string seen = pos_ < s_.size() ? fmt::format("'{}'", s_[pos_]) : "the end";
        fail(name_, "header",
             fmt::format("{} at offset {} (found {}); not a NumPy header dict", what, pos_, seen));
    }
    void expect(char c, const std::string& what) {
        if (peek() != c) syntax(what);
        ++pos_;
    }
    std::string parse_string() {
        const char quote = s_[pos_++];
        const std::size_t start = pos_;
        while (pos_ < s_.size() && s_[pos_] != quote) {
            if (s_[pos_] == '\\') syntax("escape sequences are not supported in header strings");
            ++pos_;
        }
        if (pos_ >= s_.size()) syntax("unterminated string");
        return std::string(s_.substr(start, pos_++ - start));
    }
    static bool token_char(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               c == '_' || c == '+' || c == '-' || c == '.';
    }
    std::string parse_token() {
        const std::size_t start = pos_;
        while (pos_ < s_.size() && token_char(s_[pos_])) ++pos_;
        if (pos_ == start) syntax("expected a value");
        return std::string(s_.substr(start, pos_ - start));
    }
    Value parse_value(const std::string& key) {
        Value v;
        const std::size_t start = pos_;
        const char c = peek();
        if (c == '\'' || c == '"') {
            v.kind = Value::Kind::string;
            v.text = parse_string();
        } else if (c == '(') {
            ++pos_;
            skip_ws();
            bool comma = false;
            while (peek() != ')') {
                v.elements.push_back(parse_token());
                skip_ws();
                if (peek() == ',') {
                    comma = true;
                    ++pos_;
                    skip_ws();
                } else if (peek() != ')') {
                    syntax(fmt::format("expected ',' or ')' in the value of '{}'", key));
                }
            }
            ++pos_;
            // (5) is the int 5 in Python, not a tuple.
            v.kind = v.elements.size() == 1 && !comma ? Value::Kind::other : Value::Kind::tuple;
        } else if (c == '[' || c == '{') {
            fail(name_, key,
                 fmt::format("a {} value is not supported (structured dtypes are not); attn "
                             "reads float32 (<f4) or float64 (<f8)",
                             c == '[' ? "list" : "dict"));
        } else {
            v.text = parse_token();
            if (v.text == "True" || v.text == "False") {
                v.kind = Value::Kind::boolean;
                v.flag = v.text == "True";
            }
        }
        if (v.kind != Value::Kind::string) v.text = std::string(s_.substr(start, pos_ - start));
        return v;
    }

    std::string_view s_;
    const std::string& name_;
    std::size_t pos_ = 0;
};

// A value as the header wrote it, for messages: strings quoted again.
std::string literal(const Value& v) {
    return v.kind == Value::Kind::string ? "'" + v.text + "'" : v.text;
}

struct Header {
    Dtype dtype = Dtype::float64;
    bool fortran_order = false;
    std::vector<std::size_t> shape;
};

std::size_t parse_dim(const std::string& text, const std::string& name) {
    std::string_view t = text;
    bool negative = false;
    if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
        negative = t[0] == '-';
        t.remove_prefix(1);
    }
    if (!t.empty() && (t.back() == 'L' || t.back() == 'l')) t.remove_suffix(1);  // Python 2
    if (t.empty() || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
        fail(name, "shape", fmt::format("dimension '{}' is not an integer", text));
    std::uint64_t v = 0;
    for (const char c : t) {
        const unsigned digit = static_cast<unsigned>(c - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
            fail(name, "shape", fmt::format("dimension {} is too large", text));
        v = v * 10 + digit;
    }
    if (negative && v != 0) fail(name, "shape", fmt::format("dimension {} is negative", text));
    if (v > std::numeric_limits<std::size_t>::max())
        fail(name, "shape", fmt::format("dimension {} is too large", text));
    return static_cast<std::size_t>(v);
}

Header parse_header(std::string_view text, const std::string& name) {
    const auto items = HeaderParser(text, name).parse_dict();
    std::set<std::string> seen;
    const Value* descr = nullptr;
    const Value* fortran = nullptr;
    const Value* shape = nullptr;
    for (const auto& [key, value] : items) {
        if (!seen.insert(key).second) fail(name, "header", fmt::format("duplicate key '{}'", key));
        if (key == "descr") {
            descr = &value;
        } else if (key == "fortran_order") {
            fortran = &value;
        } else if (key == "shape") {
            shape = &value;
        } else {
            fail(name, "header",
                 fmt::format("unexpected key '{}'; a NumPy header has 'descr', "
                             "'fortran_order' and 'shape'",
                             key));
        }
    }
    for (const char* key : {"descr", "fortran_order", "shape"})
        if (!seen.count(key)) fail(name, "header", fmt::format("missing key '{}'", key));

    Header h;
    if (descr->kind != Value::Kind::string)
        fail(name, "descr",
             fmt::format("expected a string such as '<f4', got {}", literal(*descr)));
    const std::string& d = descr->text;
    const bool little = std::endian::native == std::endian::little;
    const bool width = d.size() == 3 && d[1] == 'f' && (d[2] == '2' || d[2] == '4' || d[2] == '8');
    if (width && (d[0] == '<' || (d[0] == '=' && little))) {
        h.dtype = d[2] == '2' ? Dtype::float16 : d[2] == '4' ? Dtype::float32 : Dtype::float64;
    } else if (width && (d[0] == '>' || d[0] == '=')) {
        throw std::invalid_argument(
            fmt::format("{}: dtype '{}' is big-endian; attn reads little-endian float16 (<f2), "
                        "float32 (<f4) or float64 (<f8)",
                        name, d));
    } else {
        throw std::invalid_argument(
            fmt::format("{}: dtype '{}' is not supported; attn reads float16 (<f2), float32 (<f4) "
                        "or float64 (<f8)",
                        name, d));
    }

    if (fortran->kind != Value::Kind::boolean)
        fail(name, "fortran_order",
             fmt::format("expected True or False, got {}", literal(*fortran)));
    h.fortran_order = fortran->flag;

    if (shape->kind != Value::Kind::tuple)
        fail(name, "shape",
             fmt::format("expected a tuple such as (60, 32), got {}", literal(*shape)));
    for (const std::string& e : shape->elements) h.shape.push_back(parse_dim(e, name));
    return h;
}

// C order from Fortran order: walk the Fortran-order data with a multi-index whose first
// axis varies fastest, and place each value at that index's C-order offset.
std::vector<double> fortran_to_c(const std::vector<double>& f,
                                 const std::vector<std::size_t>& shape) {
    std::vector<double> c(f.size());
    if (f.empty()) return c;
    const std::size_t ndim = shape.size();
    std::vector<std::size_t> c_stride(ndim, 1);
    for (std::size_t k = ndim - 1; k > 0; --k) c_stride[k - 1] = c_stride[k] * shape[k];
    std::vector<std::size_t> index(ndim, 0);
    std::size_t offset = 0;
    for (const double v : f) {
        c[offset] = v;
        for (std::size_t k = 0; k < ndim; ++k) {
            offset += c_stride[k];
            if (++index[k] < shape[k]) break;
            offset -= c_stride[k] * shape[k];
            index[k] = 0;
        }
    }
    return c;
}

// Bytes from the current position to the end, or nullopt for a stream that cannot seek.
std::optional<std::uint64_t> bytes_left(std::istream& in) {
    const std::streampos here = in.tellg();
    if (here == std::streampos(-1)) return std::nullopt;
    in.seekg(0, std::ios::end);
    const std::streampos end = in.tellg();
    in.seekg(here);
    if (!in || end == std::streampos(-1) || end < here) {
        in.clear();
        in.seekg(here);
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(end - here);
}

}  // namespace

NpyArray read_npy(std::istream& in, const std::string& name) {
    char preamble[kPreambleV2];
    std::size_t got = read_up_to(in, preamble, 8, name);
    if (got == 0) fail(name, "magic", "empty: no bytes to read, not an NPY file");
    if (got < kMagic.size() || std::string_view(preamble, kMagic.size()) != kMagic)
        fail(name, "magic", "not an NPY file (it does not start with \\x93NUMPY)");
    if (got < 8) fail(name, "version", "the file ends inside the version bytes");
    const unsigned major = static_cast<unsigned char>(preamble[6]);
    const unsigned minor = static_cast<unsigned char>(preamble[7]);
    if (major < 1 || major > 3 || minor != 0)
        fail(name, "version",
             fmt::format("{}.{} is not supported; attn reads NPY versions 1.0, 2.0 and 3.0", major,
                         minor));
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    got = read_up_to(in, preamble + 8, len_bytes, name);
    if (got < len_bytes) fail(name, "header length", "the file ends inside the header length");
    std::uint64_t header_len = 0;
    for (std::size_t b = 0; b < len_bytes; ++b)
        header_len |= std::uint64_t{static_cast<unsigned char>(preamble[8 + b])} << (8 * b);
    if (header_len > kMaxHeaderSize)
        fail(name, "header length",
             fmt::format("{} bytes is more than attn accepts ({})", header_len, kMaxHeaderSize));
    std::string text(header_len, '\0');
    got = read_up_to(in, text.data(), text.size(), name);
    if (got < header_len)
        fail(name, "header",
             fmt::format("truncated: the header length says {} bytes, the file has {}", header_len,
                         got));
    const Header h = parse_header(text, name);

    const std::size_t item = item_size(h.dtype);
    std::uint64_t count = 0;
    std::uint64_t need = 0;
    const std::string what =
        fmt::format("shape {} of {}", runtime::shape_tuple(h.shape), numpy_descr(h.dtype));
    if (!checked_product(h.shape, count) || !checked_product({item}, need, count))
        fail(name, "shape", fmt::format("{} is too large: its byte size overflows", what));

    NpyArray array;
    array.shape = h.shape;
    array.dtype = h.dtype;
    const std::optional<std::uint64_t> left = bytes_left(in);
    if (left) {
        if (*left < need)
            fail(name, "data",
                 fmt::format("truncated: {} needs {} bytes, the file has {}", what, need, *left));
        if (*left > need)
            fail(name, "data",
                 fmt::format("{} trailing bytes after the {} bytes that {} needs", *left - need,
                             need, what));
    }
    // The values are held as doubles (twice that while Fortran order is reordered): asked of
    // the memory budget before anything is allocated, whatever the header claims.
    const bool reorder = h.fortran_order && h.shape.size() > 1;
    runtime::reserve(runtime::checked_product({count, sizeof(double), reorder ? 2u : 1u}, name),
                     fmt::format("{}: {} read as float64", name, what));

    if (left) array.values.reserve(count);
    // Read in pieces: a stream that cannot seek grows the array only with bytes it really has.
    std::array<char, kChunkBytes> buffer;
    std::uint64_t remaining = need;
    while (remaining > 0) {
        const std::size_t want =
            static_cast<std::size_t>(std::min<std::uint64_t>(remaining, buffer.size()));
        got = read_up_to(in, buffer.data(), want, name);
        if (got < want)
            fail(name, "data",
                 fmt::format("truncated: {} needs {} bytes, the input has {}", what, need,
                             need - remaining + got));
        // each value widened exactly, in a loop per dtype (one the compiler vectorises)
        const std::size_t n = want / item, at = array.values.size();
        array.values.resize(at + n);
        double* out = array.values.data() + at;
        const char* b = buffer.data();
        if (h.dtype == Dtype::float16)
            for (std::size_t k = 0; k < n; ++k)
                out[k] = runtime::from_float16_bits(
                    static_cast<std::uint16_t>(static_cast<unsigned char>(b[2 * k]) |
                                               static_cast<unsigned char>(b[2 * k + 1]) << 8));
        else if (h.dtype == Dtype::float32)
            for (std::size_t k = 0; k < n; ++k) out[k] = load_le<float, std::uint32_t>(b + 4 * k);
        else
            for (std::size_t k = 0; k < n; ++k) out[k] = load_le<double, std::uint64_t>(b + 8 * k);
        remaining -= want;
    }
    if (in.peek() != std::char_traits<char>::eof())
        fail(name, "data",
             fmt::format("trailing bytes after the {} bytes that {} needs", need, what));
    if (in.bad()) throw std::system_error(std::make_error_code(std::errc::io_error), name);
    if (reorder) array.values = fortran_to_c(array.values, h.shape);
    return array;
}

NpyArray read_npy(const std::string& path) {
    InputFile input(path, true);
    return read_npy(input.stream(), input.name());
}

bool is_npy_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[6] = {};
    in.read(magic, 6);
    return in.gcount() == 6 && std::string_view(magic, 6) == kMagic;
}

}  // namespace attn::io
