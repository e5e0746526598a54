// JSON: one object whose keys are array names. Each array:
//   {"title": "...", "dtype": "float32", "shape": [n, d],
//    "labels": {"position": ["0", "1", ...]}, "columns": ["0", ...],
//    "data": [[...], ...]}          (nested as the shape; nan and inf as null)
// Values stream row by row; labels are functions of the row, so nothing is held.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "io/array_sink.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"

namespace attn::io {

/// A JSON string literal with quotes: '"' and backslash escaped; control characters (C0,
/// DEL, C1) as u-escapes (byte 0x01 becomes backslash, "u0001"); valid UTF-8 as is; each byte
/// that is not part of valid UTF-8 as the u-escape of U+FFFD, the replacement character, so
/// that the output always parses.
std::string json_string(std::string_view text);

class JsonWriter : public ArraySink {
  public:
    JsonWriter(OutputFile& out, const TextStyle& style);
    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;
    void finish() override;

  private:
    OutputFile& out_;
    TextStyle style_;
    ArrayInfo info_;
    std::size_t arrays_ = 0;
    std::vector<std::size_t> periods_;  // rows per bracket level of the nested data
};

}  // namespace attn::io
