#include "io/markdown.hpp"

#include <fmt/format.h>

#include "io/labels.hpp"
#include "io/number_format.hpp"

namespace attn::io {

std::string markdown_cell(std::string_view text) {
    std::string cell;
    for (char c : text) {
        if (c == '\n' || c == '\r') {
            cell += ' ';
            continue;
        }
        if (c == '|' || c == '\\' || c == '*' || c == '`') cell += '\\';
        cell += c;
    }
    return cell;
}

MarkdownWriter::MarkdownWriter(OutputFile& out, const TextStyle& style)
    : out_(out), style_(style) {}

void MarkdownWriter::begin(const ArrayInfo& info) {
    info_ = info;
    fmt::memory_buffer b;
    auto it = std::back_inserter(b);
    if (arrays_++ > 0) b.push_back('\n');
    fmt::format_to(it, "**{}**\n\n|", markdown_cell(info.title.empty() ? info.name : info.title));
    for (const auto& label : info.labels) fmt::format_to(it, " {} |", markdown_cell(label.name));
    for (const auto& column : info.column_labels)
        fmt::format_to(it, " {} |", markdown_cell(column));
    if (info.labels.empty() && info.column_labels.empty()) b.append(std::string_view(" |"));
    b.append(std::string_view("\n|"));
    for (const auto& label : info.labels)
        b.append(std::string_view(label.numeric ? " ---: |" : " --- |"));
    for (std::size_t j = 0; j < info.column_labels.size(); ++j)
        b.append(std::string_view(" ---: |"));
    if (info.labels.empty() && info.column_labels.empty()) b.append(std::string_view(" --- |"));
    b.push_back('\n');
    out_.write(b.data(), b.size());
}

void MarkdownWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    const std::size_t d = info_.columns();
    fmt::memory_buffer b;
    for (std::size_t i = 0; i < n_rows; ++i) {
        b.push_back('|');
        for (const auto& label : info_.labels) {
            b.push_back(' ');
            const std::string cell =
                markdown_cell(label_text(label, first_row + i, style_.precision));
            b.append(cell.data(), cell.data() + cell.size());
            b.append(std::string_view(" |"));
        }
        for (std::size_t j = 0; j < d; ++j) {
            b.push_back(' ');
            append_number(b, values[i * d + j], info_.dtype, style_.precision);
            b.append(std::string_view(" |"));
        }
        if (info_.labels.empty() && d == 0) b.append(std::string_view(" |"));
        b.push_back('\n');
    }
    out_.write(b.data(), b.size());
}

void MarkdownWriter::end() {}

}  // namespace attn::io
