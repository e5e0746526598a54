#include "io/csv.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "io/labels.hpp"
#include "io/number_format.hpp"
#include "io/output_spec.hpp"
#include "runtime/parallel.hpp"

namespace attn::io {

std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    quoted += '"';
    return quoted;
}

std::string tsv_field(std::string_view text) {
    std::string escaped;
    for (char c : text) {
        switch (c) {
            case '\t':
                escaped += "\\t";
                break;
            case '\n':
                escaped += "\\n";
                break;
            case '\r':
                escaped += "\\r";
                break;
            case '\\':
                escaped += "\\\\";
                break;
            default:
                escaped += c;
        }
    }
    return escaped;
}

CsvWriter::CsvWriter(OutputFile& out, char separator, const TextStyle& style)
    : out_(out), separator_(separator), style_(style) {}

std::string CsvWriter::field(std::string_view text) const {
    return separator_ == ',' ? csv_field(text) : tsv_field(text);
}

void CsvWriter::begin(const ArrayInfo& info) {
    if (started_)
        throw OutputError(OutputError::Kind::one_array_only, "",
                          separator_ == ',' ? Format::csv : Format::tsv, 0);
    started_ = true;
    info_ = info;
    if (!style_.header) return;
    fmt::memory_buffer line;
    bool first = true;
    auto put = [&](std::string_view text) {
        if (!first) line.push_back(separator_);
        first = false;
        const std::string f = field(text);
        line.append(f.data(), f.data() + f.size());
    };
    for (const auto& label : info_.labels) put(label.name);
    for (const auto& column : info_.column_labels) put(column);
    line.push_back('\n');
    out_.write(line.data(), line.size());
}

void CsvWriter::format_rows(fmt::memory_buffer& out, std::size_t first_row, const double* values,
                            std::size_t n_rows) const {
    const std::size_t d = info_.columns();
    for (std::size_t r = 0; r < n_rows; ++r) {
        bool first = true;
        for (const auto& label : info_.labels) {
            if (!first) out.push_back(separator_);
            first = false;
            const std::string f = field(label_text(label, first_row + r, style_.precision));
            out.append(f.data(), f.data() + f.size());
        }
        const double* row = values + r * d;
        for (std::size_t j = 0; j < d; ++j) {
            if (!first) out.push_back(separator_);
            first = false;
            append_number(out, row[j], info_.dtype, style_.precision);
        }
        out.push_back('\n');
    }
}

void CsvWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    const std::size_t d = info_.columns();
    // Formatting dominates; with several threads each formats a contiguous slice of rows into
    // its own buffer and the slices are written in order.
    const std::size_t threads =
        std::max<std::size_t>(1, std::min(style_.threads, n_rows * d / 4096));
    std::vector<fmt::memory_buffer> parts(threads);
    const std::size_t per = (n_rows + threads - 1) / threads;
    auto work = [&](std::size_t t) {
        const std::size_t lo = std::min(n_rows, t * per), hi = std::min(n_rows, lo + per);
        format_rows(parts[t], first_row + lo, values + lo * d, hi - lo);
    };
    parallel_for(threads, 1, [&](std::size_t lo, std::size_t hi) {
        for (std::size_t t = lo; t < hi; ++t) work(t);
    });
    for (const auto& part : parts) out_.write(part.data(), part.size());
}

void CsvWriter::end() {}

}  // namespace attn::io
