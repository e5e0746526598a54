// A stack of matrices as one MatrixStream: [A] x [B] matrices along at most two axes (batch
// elements and heads, layers and heads, ...) whose chosen rows are streamed, shape
// ([A,] [B,] rows, cols), with the axes' label fields before the matrix's own. What attend's
// per-head arrays (Q, K, V, scores, weights, W; --model's layers x heads) are.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/matrix_stream.hpp"

namespace attn::io {

/// "0", "1", ..., "n-1": column labels of a matrix without names.
std::vector<std::string> index_labels(std::size_t n);

/// "-(n-1)", ..., "0", ..., "n-1": column labels of the 2n-1 signed offsets j - i of n rows.
std::vector<std::string> offset_labels(std::size_t n);

/// 0, 1, ..., n-1: every row of a matrix.
std::vector<std::size_t> every_row(std::size_t n);

/// Rows [i, i + len) of matrix (b, h) of a stack, as doubles, into out (len rows).
using StackBlock =
    std::function<void(std::size_t b, std::size_t h, std::size_t i, std::size_t len, double* out)>;

/// A label field of a matrix's row i (its index in the matrix, not in the stack).
struct StackLabel {
    std::string name;
    std::function<std::string(std::size_t i)> value;
    bool numeric = false;  // LabelColumn::numeric
};

/// A label field holding the row's index: name, then "0", "1", ...
StackLabel index_label(std::string name, bool numeric = false);

/// A label field holding given numbers (a selection of layers or heads): row i is values[i];
/// numeric.
StackLabel value_label(std::string name, std::vector<std::size_t> values);

/// An axis of the stack: `size` matrices along it (0: no such axis), matrix k labelled
/// label.value(k).
struct StackAxis {
    std::size_t size = 0;
    StackLabel label;
    std::string panel_name;  // what panel titles call it ("sequence"); empty: label.name
};

/// An axis labelled by its index: "0", "1", ..., size - 1 (size 0: no axis).
StackAxis index_axis(std::string name, std::size_t size);

/// An axis labelled by the given numbers (value_label).
StackAxis value_axis(std::string name, std::vector<std::size_t> values);

/// Pictures of a stack: one panel per matrix, titled by its axes ("layer 3, head 0").
enum class PanelTitles {
    none,          // no panels: one picture of every row
    every_axis,    // every present axis in every title, even for a single matrix
    varying_axes,  // only the axes of more than one matrix ("head 2"); a single matrix: no panels
};
/// Cells of matrix (a, h) that pictures draw as masked: row i (the matrix's own), column j.
using StackMask = std::function<bool(std::size_t a, std::size_t h, std::size_t i, std::size_t j)>;
struct StackPanels {
    PanelTitles titles = PanelTitles::none;
    bool row_per_outer = false;  // several outer matrices: one row of panels each
    StackMask masked = nullptr;  // nothing masked when empty
};

/// A sentence's rows: "position", then "token" (tokens[i]) unless tokens is empty.
std::vector<StackLabel> position_labels(std::vector<std::string> tokens);

/// The stack: outer x inner matrices (an axis of size 0 is absent: its index is always 0), rows
/// `rows` of each, `column_labels.size()` columns; matrix (a, b) is block's (b, h). Each run of
/// consecutive rows of one matrix is asked of `block` at once. panels: how pictures split it.
MatrixStream matrix_stack(std::string name, std::string title, StackAxis outer, StackAxis inner,
                          std::vector<std::size_t> rows, std::vector<std::string> column_labels,
                          std::vector<StackLabel> row_labels, StackBlock block,
                          StackPanels panels = {});

/// The same over the axes `batch` (panels: "sequence b") and `head`, labelled by index (0 = no
/// such axis).
MatrixStream matrix_stack(std::string name, std::string title, std::size_t batch, std::size_t heads,
                          std::vector<std::size_t> rows, std::vector<std::string> column_labels,
                          std::vector<StackLabel> row_labels, StackBlock block,
                          StackPanels panels = {});

/// A StackBlock reading held row-major matrices: data(b, h) points at a matrix of `cols`
/// columns, which must live while the stream does.
template <class T>
StackBlock held_rows(std::function<const T*(std::size_t b, std::size_t h)> data, std::size_t cols) {
    return [data, cols](std::size_t b, std::size_t h, std::size_t i, std::size_t len, double* out) {
        const T* m = data(b, h) + i * cols;
        for (std::size_t k = 0; k < len * cols; ++k) out[k] = static_cast<double>(m[k]);
    };
}

/// A StackBlock over a producer of T rows: fill(b, h, i, len, buf) writes rows [i, i + len) of
/// matrix (b, h), `cols` values each, into buf (the block's own, kept between calls), handed on
/// as doubles.
template <class T>
StackBlock converted_rows(
    std::function<void(std::size_t b, std::size_t h, std::size_t i, std::size_t len, T* buf)> fill,
    std::size_t cols) {
    auto buffer = std::make_shared<std::vector<T>>();
    return [fill, cols, buffer](std::size_t b, std::size_t h, std::size_t i, std::size_t len,
                                double* out) {
        buffer->resize(len * cols);
        fill(b, h, i, len, buffer->data());
        for (std::size_t k = 0; k < len * cols; ++k) out[k] = static_cast<double>((*buffer)[k]);
    };
}

}  // namespace attn::io
