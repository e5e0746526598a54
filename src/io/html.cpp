#include "io/html.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string_view>

#include "io/html_resources.hpp"  // generated from share/html/ at build time
#include "io/json.hpp"
#include "io/number_format.hpp"
#include "io/output_spec.hpp"
#include "io/svg.hpp"

namespace attn::io {

namespace {

std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string s;
    for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? " x " : "") + std::to_string(shape[k]);
    return s;
}

// page.html with every @NAME@ replaced by its text, in one pass (a title holding "@STYLE@"
// stays as it is).
std::string fill(std::string_view page,
                 const std::vector<std::pair<std::string, std::string>>& by) {
    std::string s;
    for (std::size_t at = 0; at < page.size();) {
        bool replaced = false;
        for (const auto& [name, text] : by)
            if (page.substr(at, name.size()) == name) {
                s += text;
                at += name.size();
                replaced = true;
                break;
            }
        if (!replaced) s += page[at++];
    }
    return s;
}

// A label as a JSON value: a plain integer ("3") as a number, anything else as a string.
std::string json_label(const std::string& text) {
    const bool integer = !text.empty() && text.size() < 16 &&
                         text.find_first_not_of("0123456789") == std::string::npos &&
                         (text == "0" || text[0] != '0');
    return integer ? text : html_json_string(text);
}

}  // namespace

HtmlShape html_shape(const std::vector<std::size_t>& shape) {
    if (shape.size() < 2 || shape.size() > 4)
        throw std::invalid_argument(fmt::format(
            "html: draws [layer][head] query x key weights (2 to 4 axes), not shape ({})",
            shape_text(shape)));
    HtmlShape s;
    const std::size_t rank = shape.size();
    s.n = shape[rank - 1];
    if (shape[rank - 2] != s.n)
        throw std::invalid_argument(
            fmt::format("html: draws every query against every key (square matrices), not {} x {}",
                        shape[rank - 2], s.n));
    if (s.n == 0) throw std::invalid_argument("html: no tokens: nothing to draw");
    if (rank >= 3) s.heads = shape[rank - 3];
    if (rank == 4) s.layers = shape[0];
    if (s.n > kMaxHtmlTokens)
        throw OutputError(OutputError::Kind::too_many_tokens, "", Format::html, s.n);
    std::size_t total = 0;  // layers x heads x n x n, or more than the limit on overflow
    const bool overflow = __builtin_mul_overflow(s.layers, s.heads, &total) ||
                          __builtin_mul_overflow(total, s.n * s.n, &total);
    if (overflow || total > kMaxHtmlWeights)
        throw OutputError(OutputError::Kind::too_many_weights, shape_text(shape), Format::html,
                          overflow ? kMaxHtmlWeights + 1 : total);
    return s;
}

std::string html_json_string(const std::string& text) {
    const std::string quoted = json_string(text);
    std::string s;
    for (char c : quoted)
        if (c == '<')
            s += "\\u003c";  // "</script>" in a token ends no script element
        else
            s += c;
    return s;
}

HtmlWriter::HtmlWriter(OutputFile& out, const TextStyle& style) : out_(out), style_(style) {}

void HtmlWriter::begin(const ArrayInfo& info) {
    if (started_) return begin_extra(info);
    started_ = true;
    info_ = info;
    dtype_ = info.dtype;
    columns_ = info.columns();
    shape_ = html_shape(info.shape);
    const std::size_t n = shape_.n, H = shape_.heads, rank = info.shape.size();

    // The leading axes are named by the first label fields when there are more fields than
    // leading axes (the rest label the rows): e.g. "layer", "head", then "position", "token".
    const std::size_t leading = rank - 2;
    const bool named = info.labels.size() > leading;
    const auto axis_label = [&](std::size_t axis, std::size_t row, std::size_t index) {
        return named ? info.labels[axis].value(row) : std::to_string(index);
    };
    std::string layer_axis = "layer", head_axis = "head";
    if (named && rank == 4) layer_axis = info.labels[0].name;
    if (named && rank >= 3) head_axis = info.labels[leading - 1].name;

    const std::string title =
        style_.picture.title
            ? *style_.picture.title
            : fmt::format("{} ({}, {})", info.title.empty() ? info.name : info.title,
                          shape_text(info.shape), dtype_name(info.dtype));
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    const std::string_view page = html_resources::kPage;
    const std::size_t data_at = page.find("@DATA@");
    b.append(fill(page.substr(0, data_at), {{"@TITLE@", xml_escape(title)},
                                            {"@STYLE@", std::string(html_resources::kStyle)}}));
    fmt::format_to(it, "{{\"title\": {}, \"name\": {}, \"axes\": [{}, {}],\n\"tokens\": [",
                   html_json_string(title), html_json_string(info.name),
                   html_json_string(layer_axis), html_json_string(head_axis));
    for (std::size_t j = 0; j < n; ++j) {
        const std::string token =
            j < info.column_labels.size() ? info.column_labels[j] : std::to_string(j);
        fmt::format_to(it, "{}{}", j ? ", " : "", html_json_string(token));
    }
    b.append(std::string_view("],\n\"layers\": ["));
    for (std::size_t l = 0; l < shape_.layers; ++l)
        fmt::format_to(it, "{}{}", l ? ", " : "", json_label(axis_label(0, l * H * n, l)));
    b.append(std::string_view("],\n\"heads\": ["));
    for (std::size_t h = 0; h < H; ++h)
        fmt::format_to(it, "{}{}", h ? ", " : "",
                       json_label(rank >= 3 ? axis_label(leading - 1, h * n, h) : "0"));
    b.append(std::string_view("],\n\"weights\": ["));
    out_.write(b.data(), b.size());
}

// Row r = (layer x H + head) x n + query opens a layer's bracket every H x n rows, a head's
// every n rows; each row is one bracketed list of n weights. A table's rows are plain lists.
void HtmlWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    const bool table = part_ == Part::table;
    const std::size_t n = shape_.n, per_layer = shape_.heads * n, m = columns_;
    fmt::memory_buffer b;
    for (std::size_t i = 0; i < n_rows; ++i) {
        const std::size_t r = first_row + i;
        if (table) {
            b.append(std::string_view(r > 0 ? ",\n[" : "["));
        } else {
            if (r > 0) b.append(std::string_view(r % n == 0 ? ",\n" : ","));
            if (r % per_layer == 0) b.push_back('[');
            if (r % n == 0) b.push_back('[');
            b.push_back('[');
        }
        for (std::size_t j = 0; j < m; ++j) {
            if (j) b.push_back(',');
            const double v = values[i * m + j];
            if (std::isfinite(v))
                append_number(b, v, dtype_, style_.precision);
            else
                b.append(std::string_view("null"));
        }
        b.push_back(']');
        if (table) continue;
        if ((r + 1) % n == 0) b.push_back(']');
        if ((r + 1) % per_layer == 0) b.push_back(']');
    }
    out_.write(b.data(), b.size());
}

void HtmlWriter::write_masked() {
    const std::size_t n = shape_.n, rows = shape_.layers * shape_.heads * n;
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    b.append(std::string_view(",\n\"masked\": ["));
    for (std::size_t r = 0; r < rows; ++r) {
        b.append(std::string_view(r ? ",[" : "["));
        bool first = true;
        for (std::size_t j = 0; j < n;) {
            if (!info_.masked(r, j)) {
                ++j;
                continue;
            }
            std::size_t to = j + 1;
            while (to < n && info_.masked(r, to)) ++to;
            fmt::format_to(it, "{}[{},{}]", first ? "" : ",", j, to);
            first = false;
            j = to;
        }
        b.push_back(']');
        if (b.size() > (1u << 16)) {
            out_.write(b.data(), b.size());
            b.clear();
        }
    }
    b.push_back(']');
    out_.write(b.data(), b.size());
}

void HtmlWriter::end() {
    out_.write(std::string_view(part_ == Part::main ? "]" : "]}"));
    if (part_ == Part::main && info_.masked) write_masked();
}

void HtmlWriter::finish() {
    if (!started_) return;
    if (extras_ > 0) out_.write(std::string_view("]"));
    const std::string_view page = html_resources::kPage;
    const std::size_t data_at = page.find("@DATA@") + std::string_view("@DATA@").size();
    out_.write(std::string_view("}\n"));
    out_.write(fill(page.substr(data_at), {{"@SCRIPT@", std::string(html_resources::kScript)},
                                           {"@TABLES@", std::string(html_resources::kTables)}}));
    started_ = false;
}

void HtmlWriter::begin_extra(const ArrayInfo& info) {
    const std::size_t n = shape_.n;
    const bool view = info.shape == info_.shape;
    if (!view && !(info.shape.size() == 2 && info.shape[1] == n))
        throw std::invalid_argument(fmt::format(
            "html: '{}' of shape ({}) is neither of the page's shape ({}) nor a table of "
            "{} columns, one per token",
            info.name, shape_text(info.shape), shape_text(info_.shape), n));
    if (view) {
        const std::size_t total = (views_ + 2) * shape_.layers * shape_.heads * n * n;
        if (total > kMaxHtmlWeights)
            throw OutputError(OutputError::Kind::too_many_weights,
                              fmt::format("{} and {} more", shape_text(info.shape), views_ + 1),
                              Format::html, total);
        ++views_;
    }
    part_ = view ? Part::view : Part::table;
    dtype_ = info.dtype;
    columns_ = info.columns();
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    b.append(std::string_view(extras_++ == 0 ? ",\n\"extras\": [" : ",\n"));
    fmt::format_to(it, "{{\"kind\": \"{}\", \"name\": {}, \"title\": {}", view ? "view" : "table",
                   html_json_string(info.name),
                   html_json_string(info.title.empty() ? info.name : info.title));
    if (view) {
        const bool as_is = info.value_range && *info.value_range == std::pair{0.0, 1.0};
        fmt::format_to(it, ", \"scale\": \"{}\",\n\"values\": [", as_is ? "none" : "row_sum");
        out_.write(b.data(), b.size());
        return;
    }
    const std::size_t rows = info.shape[0];
    const bool named = !info.labels.empty();
    fmt::format_to(it, ", \"axis\": {},\n\"rows\": [",
                   html_json_string(named ? info.labels[0].name : "row"));
    for (std::size_t r = 0; r < rows; ++r)
        fmt::format_to(it, "{}{}", r ? ", " : "",
                       json_label(named ? info.labels[0].value(r) : std::to_string(r)));
    b.push_back(']');
    if (info.strings) {
        const std::vector<std::string> texts = info.strings();
        if (texts.size() != rows * n)
            throw std::invalid_argument(fmt::format("html: table '{}' has {} texts for {} cells",
                                                    info.name, texts.size(), rows * n));
        b.append(std::string_view(",\n\"texts\": ["));
        for (std::size_t r = 0; r < rows; ++r) {
            b.append(std::string_view(r ? ",\n[" : "["));
            for (std::size_t j = 0; j < n; ++j)
                fmt::format_to(it, "{}{}", j ? "," : "", html_json_string(texts[r * n + j]));
            b.push_back(']');
        }
        b.push_back(']');
    }
    b.append(std::string_view(",\n\"values\": ["));
    out_.write(b.data(), b.size());
}

}  // namespace attn::io
