// Markdown: a GitHub-flavoured pipe table per array, for pasting into notes. Each array is
// a bold title line, a blank line, a header row (label names, then column labels), the
// alignment row (numbers right-aligned) and one line per row; arrays are separated by a
// blank line. Rows stream as they arrive; numbers print as in csv (shortest round-trip, or
// --precision significant digits), inf and nan as such.
#pragma once

#include <string>
#include <string_view>

#include "io/array_sink.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"

namespace attn::io {

/// A table cell: '|' and '\' escaped with a backslash, '*' and '`' too (they would start
/// emphasis or code), and line breaks replaced by spaces.
std::string markdown_cell(std::string_view text);

class MarkdownWriter : public ArraySink {
  public:
    MarkdownWriter(OutputFile& out, const TextStyle& style);
    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;

  private:
    OutputFile& out_;
    TextStyle style_;
    ArrayInfo info_;
    std::size_t arrays_ = 0;
};

}  // namespace attn::io
