#include "io/matrix_stack.hpp"

#include <algorithm>
#include <memory>
#include <utility>

namespace attn::io {

std::vector<std::string> index_labels(std::size_t n) {
    std::vector<std::string> v;
    for (std::size_t j = 0; j < n; ++j) v.push_back(std::to_string(j));
    return v;
}

std::vector<std::string> offset_labels(std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t o = 0; o + 1 < 2 * n; ++o)
        out.push_back(std::to_string(static_cast<long long>(o) - static_cast<long long>(n - 1)));
    return out;
}

std::vector<std::size_t> every_row(std::size_t n) {
    std::vector<std::size_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = i;
    return v;
}

StackLabel index_label(std::string name, bool numeric) {
    return {std::move(name), [](std::size_t i) { return std::to_string(i); }, numeric};
}

StackLabel value_label(std::string name, std::vector<std::size_t> values) {
    auto v = std::make_shared<std::vector<std::size_t>>(std::move(values));
    return {std::move(name), [v](std::size_t i) { return std::to_string((*v)[i]); }, true};
}

StackAxis index_axis(std::string name, std::size_t size) {
    return {size, index_label(std::move(name)), {}};
}

StackAxis value_axis(std::string name, std::vector<std::size_t> values) {
    const std::size_t size = values.size();
    return {size, value_label(std::move(name), std::move(values)), {}};
}

std::vector<StackLabel> position_labels(std::vector<std::string> tokens) {
    std::vector<StackLabel> labels{index_label("position")};
    if (tokens.empty()) return labels;
    auto t = std::make_shared<std::vector<std::string>>(std::move(tokens));
    labels.push_back({"token", [t](std::size_t i) { return (*t)[i]; }});
    return labels;
}

namespace {

// Panel titles of matrix (a, h) of the stack: "outer a, inner h", the axes `shown` only.
void add_panels(ArrayInfo& info, const StackAxis& outer, const StackAxis& inner, std::size_t rows,
                StackPanels panels) {
    const std::size_t A = std::max<std::size_t>(outer.size, 1),
                      H = std::max<std::size_t>(inner.size, 1);
    const bool every = panels.titles == PanelTitles::every_axis;
    if (panels.titles == PanelTitles::none || (!every && A * H == 1)) return;
    const auto part = [every](const StackAxis& axis, std::size_t k, std::string& t) {
        if (axis.size == 0 || (!every && axis.size == 1)) return;
        t += (t.empty() ? "" : ", ") +
             (axis.panel_name.empty() ? axis.label.name : axis.panel_name) + " " +
             axis.label.value(k);
    };
    info.panel_rows = rows;
    info.panel_columns = panels.row_per_outer && outer.size > 1 ? inner.size : 0;
    for (std::size_t a = 0; a < A; ++a)
        for (std::size_t h = 0; h < H; ++h) {
            std::string t;
            part(outer, a, t);
            part(inner, h, t);
            info.panel_titles.push_back(std::move(t));
        }
}

}  // namespace

MatrixStream matrix_stack(std::string name, std::string title, StackAxis outer, StackAxis inner,
                          std::vector<std::size_t> rows, std::vector<std::string> column_labels,
                          std::vector<StackLabel> row_labels, StackBlock block,
                          StackPanels panels) {
    MatrixStream e;
    e.info.name = std::move(name);
    e.info.title = std::move(title);
    // stack row r: matrix r / nr (outer r / nr / H, inner r / nr % H), its row idx[r % nr]
    const std::size_t nr = rows.size(), H = std::max<std::size_t>(inner.size, 1);
    add_panels(e.info, outer, inner, nr, panels);
    auto idx = std::make_shared<std::vector<std::size_t>>(std::move(rows));
    if (outer.size) {
        e.info.shape.push_back(outer.size);
        e.info.labels.push_back(
            {outer.label.name,
             [nr, H, f = outer.label.value](std::size_t r) { return f(r / nr / H); },
             outer.label.numeric});
    }
    if (inner.size) {
        e.info.shape.push_back(inner.size);
        e.info.labels.push_back(
            {inner.label.name,
             [nr, H, f = inner.label.value](std::size_t r) { return f(r / nr % H); },
             inner.label.numeric});
    }
    for (auto& l : row_labels)
        e.info.labels.push_back(
            {l.name, [idx, nr, f = l.value](std::size_t r) { return f((*idx)[r % nr]); },
             l.numeric});
    if (panels.masked)
        e.info.masked = [idx, nr, H, m = panels.masked](std::size_t r, std::size_t j) {
            return m(r / nr / H, r / nr % H, (*idx)[r % nr], j);
        };
    e.info.shape.push_back(nr);
    e.info.shape.push_back(column_labels.size());
    const std::size_t cols = column_labels.size();
    e.info.column_labels = std::move(column_labels);
    e.produce = [idx, nr, H, cols, block](std::size_t first, std::size_t count, double* out) {
        for (std::size_t done = 0; done < count;) {
            const std::size_t r = first + done, i = (*idx)[r % nr];
            std::size_t len = 1;  // consecutive rows of one matrix
            while (done + len < count && (r + len) % nr != 0 && (*idx)[(r + len) % nr] == i + len)
                ++len;
            block(r / nr / H, r / nr % H, i, len, out + done * cols);
            done += len;
        }
    };
    return e;
}

MatrixStream matrix_stack(std::string name, std::string title, std::size_t batch, std::size_t heads,
                          std::vector<std::size_t> rows, std::vector<std::string> column_labels,
                          std::vector<StackLabel> row_labels, StackBlock block,
                          StackPanels panels) {
    StackAxis sequences = index_axis("batch", batch);
    sequences.panel_name = "sequence";
    return matrix_stack(std::move(name), std::move(title), std::move(sequences),
                        index_axis("head", heads), std::move(rows), std::move(column_labels),
                        std::move(row_labels), std::move(block), panels);
}

}  // namespace attn::io
