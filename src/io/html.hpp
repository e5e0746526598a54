// HTML: one self-contained interactive page of a stack of square weight matrices
// [layer][head][query][key] labelled by tokens (a 3-d array is one layer of heads, a 2-d one
// a single matrix). Nothing is fetched: the style and the script (share/html/, compiled into
// the binary) are inline, and the data is one embedded JSON document:
//   <script type="application/json" id="attn-data">
//   {"title": "...", "axes": ["layer", "head"], "tokens": [...], "layers": [0, ...],
//    "heads": [0, ...], "weights": [layer][head][query][key], "masked": [...]}
// tokens are the column labels (else 0..n-1); layers and heads the label fields that name the
// leading axes; weights written as the json writer writes them (shortest round trip, or
// --precision digits); masked (only when ArrayInfo::masked is set) holds, per row r = (layer
// x H + head) x n + query, the runs [from, to) of masked keys.
// The page draws the head view (query tokens left, key tokens right, a line per weight > 0)
// and the model view (a heatmap thumbnail per layer and head). Values stream into the page
// as they arrive: memory does not grow with the array.
// Arrays after the first, each an element of "extras" in the order they come:
//   - of the first array's shape: other values of the same matrices, which a toggle in the
//     head view draws in place of the first's (e.g. weights weighed by something else):
//       {"kind": "view", "name": ..., "title": ..., "scale": "none" | "row_sum",
//        "values": [layer][head][query][key]}
//     scale "none" when the array's value_range is [0, 1] (drawn as they are), else "row_sum":
//     drawn as each value's fraction of its row's sum (null and negative values as 0);
//   - of shape (rows, n), n the page's tokens: a table under the tokens, a row per array row
//     named by its first label field, a column per token, each cell its number and, when
//     ArrayInfo::strings gives rows x n texts (row-major), its text:
//       {"kind": "table", "name": ..., "title": ..., "axis": label name, "rows": [labels],
//        "texts": [rows][n] (absent without strings), "values": [rows][n]}
// Other shapes: std::invalid_argument. The first array and its views hold at most
// kMaxHtmlWeights values in all.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/array_sink.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"

namespace attn::io {

/// Size limits of a page (a browser draws it in about a second at GPT-2 small's 12 x 12
/// heads of 128 tokens): tokens per side, and weights in all (layers x heads x n x n).
constexpr std::size_t kMaxHtmlTokens = 512;
constexpr std::size_t kMaxHtmlWeights = std::size_t{1} << 24;

/// The matrices of a [layer][head][query][key] array: layers x heads of n x n.
struct HtmlShape {
    std::size_t layers = 1, heads = 1, n = 0;
};

/// The page's shape for an array of shape `shape`; throws std::invalid_argument when the
/// array is not 2-, 3- or 4-d with square matrices, OutputError too_many_tokens or
/// too_many_weights beyond the limits. Callers may check a run before computing it.
HtmlShape html_shape(const std::vector<std::size_t>& shape);

/// a JSON string literal safe inside an HTML script element ('<' written as a u-escape).
std::string html_json_string(const std::string& text);

class HtmlWriter : public ArraySink {
  public:
    HtmlWriter(OutputFile& out, const TextStyle& style);
    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;
    void finish() override;

  private:
    void write_masked();
    void begin_extra(const ArrayInfo& info);

    enum class Part { main, view, table };
    OutputFile& out_;
    TextStyle style_;
    ArrayInfo info_;  // the first array's
    HtmlShape shape_;
    Dtype dtype_ = Dtype::float32;  // of the array being written
    bool started_ = false;
    Part part_ = Part::main;
    std::size_t views_ = 0, extras_ = 0;
    std::size_t columns_ = 0;  // values per row of the array being written
};

}  // namespace attn::io
