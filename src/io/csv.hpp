// CSV (RFC 4180) and TSV writers: a header row (label names, then column labels), then one
// line per row: its label fields, then its values.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "io/array_sink.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"

namespace attn::io {

/// A CSV field: quoted ("a ""b"", c") when it holds a comma, quote, CR or LF (RFC 4180).
std::string csv_field(std::string_view text);
/// A TSV field: tab, newline, CR and backslash escaped as \t \n \r \\ (no quoting in TSV).
std::string tsv_field(std::string_view text);

class CsvWriter : public ArraySink {
  public:
    /// separator ',' for csv, '\t' for tsv.
    CsvWriter(OutputFile& out, char separator, const TextStyle& style);
    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;

  private:
    std::string field(std::string_view text) const;
    void format_rows(fmt::memory_buffer& out, std::size_t first_row, const double* values,
                     std::size_t n_rows) const;

    OutputFile& out_;
    char separator_;
    TextStyle style_;
    ArrayInfo info_;
    bool started_ = false;
};

}  // namespace attn::io
