#include "io/json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "io/number_format.hpp"

namespace attn::io {

namespace {

// Length of the well-formed UTF-8 sequence at t[i] (RFC 3629: no overlongs, no surrogates,
// at most U+10FFFF), 0 when the bytes there are not one.
std::size_t utf8_sequence(std::string_view t, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(t[k]); };
    const unsigned char c = byte(i);
    std::size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (i + n > t.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    return n;
}

}  // namespace

std::string json_string(std::string_view text) {
    std::string s = "\"";
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            const std::size_t n = utf8_sequence(text, i);
            if (n == 0) {  // not UTF-8: U+FFFD, the replacement character, for this byte
                s += "\\ufffd";
                ++i;
            } else if (n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
                // C1 control character U+0080..U+009F
                s += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
                i += 2;
            } else {
                s.append(text.substr(i, n));
                i += n;
            }
            continue;
        }
        switch (c) {
            case '"':
                s += "\\\"";
                break;
            case '\\':
                s += "\\\\";
                break;
            case '\n':
                s += "\\n";
                break;
            case '\r':
                s += "\\r";
                break;
            case '\t':
                s += "\\t";
                break;
            default:
                if (c < 0x20 || c == 0x7f)
                    s += fmt::format("\\u{:04x}", c);
                else
                    s += static_cast<char>(c);
        }
        ++i;
    }
    return s + "\"";
}

namespace {

// Whether text is a number in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view t) {
    std::size_t i = 0;
    auto digits = [&] {
        const std::size_t from = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
        return i > from;
    };
    if (i < t.size() && t[i] == '-') ++i;
    if (i < t.size() && t[i] == '0')
        ++i;
    else if (!digits())
        return false;
    if (i < t.size() && t[i] == '.' && (++i, !digits())) return false;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        if (!digits()) return false;
    }
    return i == t.size();
}

// A numeric label field: the number as written, null for inf and nan, else a string.
std::string json_label(const LabelColumn& label, std::size_t row, std::optional<int> precision) {
    if (label.number) {
        const double v = label.number(row);
        if (!std::isfinite(v)) return "null";
        fmt::memory_buffer b;
        append_number(b, v, label.dtype, precision);
        return fmt::to_string(b);
    }
    const std::string text = label.value(row);
    if (!label.numeric) return json_string(text);
    if (is_json_number(text)) return text;
    if (text == "inf" || text == "-inf" || text == "nan" || text == "-nan") return "null";
    return json_string(text);
}

}  // namespace

JsonWriter::JsonWriter(OutputFile& out, const TextStyle& style) : out_(out), style_(style) {}

void JsonWriter::begin(const ArrayInfo& info) {
    info_ = info;
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    fmt::format_to(it, "{}\n{}: {{\"title\": {}, \"dtype\": \"{}\", \"shape\": [",
                   arrays_++ ? "," : "{", json_string(info.name), json_string(info.title),
                   dtype_name(info.dtype));
    periods_.clear();
    if (info.table) {  // pandas' orient="split": a row's label fields, then its values
        fmt::format_to(it, "{}, {}],\n \"columns\": [", info.rows(),
                       info.labels.size() + info.columns());
        std::size_t k = 0;
        for (const auto& l : info.labels)
            fmt::format_to(it, "{}{}", k++ ? ", " : "", json_string(l.name));
        for (const auto& c : info.column_labels)
            fmt::format_to(it, "{}{}", k++ ? ", " : "", json_string(c));
        // the data's brackets: one level, opened before row 0 and closed after the last
        if (info.rows() > 0) periods_.push_back(info.rows());
        fmt::format_to(it, "],\n \"data\": {}", info.rows() == 0 ? "[]" : "");
        out_.write(b.data(), b.size());
        return;
    }
    for (std::size_t k = 0; k < info.shape.size(); ++k)
        fmt::format_to(it, "{}{}", k ? ", " : "", info.shape[k]);
    fmt::format_to(it, "],\n \"labels\": {{");
    for (std::size_t l = 0; l < info.labels.size(); ++l) {
        fmt::format_to(it, "{}{}: [", l ? ", " : "", json_string(info.labels[l].name));
        for (std::size_t r = 0; r < info.rows(); ++r) {
            fmt::format_to(it, "{}{}", r ? ", " : "",
                           json_label(info.labels[l], r, style_.precision));
            if (b.size() > (1u << 16)) {  // the labels stream: memory independent of rows
                out_.write(b.data(), b.size());
                b.clear();
            }
        }
        b.push_back(']');
    }
    fmt::format_to(it, "}},\n \"columns\": [");
    for (std::size_t j = 0; j < info.column_labels.size(); ++j)
        fmt::format_to(it, "{}{}", j ? ", " : "", json_string(info.column_labels[j]));
    fmt::format_to(it, "],\n \"data\": ");
    // Bracket level m (outermost first) opens every periods_[m] rows.
    periods_.clear();
    for (std::size_t m = 0; m + 1 < info.shape.size(); ++m) {
        std::size_t p = 1;
        for (std::size_t k = m; k + 1 < info.shape.size(); ++k) p *= info.shape[k];
        periods_.push_back(p);
    }
    if (info.rows() == 0 || info.columns() == 0) {
        if (info.rows() == 0) fmt::format_to(it, "[]");
    }
    out_.write(b.data(), b.size());
}

void JsonWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    const std::size_t d = info_.columns();
    fmt::memory_buffer b;
    for (std::size_t i = 0; i < n_rows; ++i) {
        const std::size_t r = first_row + i;
        if (r > 0) b.append(std::string_view(",\n  "));
        for (std::size_t p : periods_)
            if (r % p == 0) b.push_back('[');
        b.push_back('[');
        for (std::size_t l = 0; info_.table && l < info_.labels.size(); ++l) {
            const std::string f = json_label(info_.labels[l], r, style_.precision);
            if (l) b.append(std::string_view(", "));
            b.append(f.data(), f.data() + f.size());
        }
        for (std::size_t j = 0; j < d; ++j) {
            if (j || (info_.table && !info_.labels.empty())) b.append(std::string_view(", "));
            const double v = values[i * d + j];
            if (std::isfinite(v))
                append_number(b, v, info_.dtype, style_.precision);
            else
                b.append(std::string_view("null"));
        }
        b.push_back(']');
        for (std::size_t p : periods_)
            if ((r + 1) % p == 0) b.push_back(']');
    }
    out_.write(b.data(), b.size());
}

void JsonWriter::end() {
    out_.write(std::string_view("}"));
}

void JsonWriter::finish() {
    out_.write(std::string_view(arrays_ ? "\n}\n" : "{}\n"));
}

}  // namespace attn::io
