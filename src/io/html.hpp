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

  private:
    void write_masked();

    OutputFile& out_;
    TextStyle style_;
    ArrayInfo info_;
    HtmlShape shape_;
    bool started_ = false;
};

}  // namespace attn::io
