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

StackLabel index_label(std::string name) {
    return {std::move(name), [](std::size_t i) { return std::to_string(i); }};
}

std::vector<StackLabel> position_labels(std::vector<std::string> tokens) {
    std::vector<StackLabel> labels{index_label("position")};
    if (tokens.empty()) return labels;
    auto t = std::make_shared<std::vector<std::string>>(std::move(tokens));
    labels.push_back({"token", [t](std::size_t i) { return (*t)[i]; }});
    return labels;
}

MatrixStream matrix_stack(std::string name, std::string title, std::size_t batch, std::size_t heads,
                          std::vector<std::size_t> rows, std::vector<std::string> column_labels,
                          std::vector<StackLabel> row_labels, StackBlock block) {
    MatrixStream e;
    e.info.name = std::move(name);
    e.info.title = std::move(title);
    // stack row r: matrix r / nr (batch r / nr / H, head r / nr % H), its row idx[r % nr]
    const std::size_t nr = rows.size(), H = std::max<std::size_t>(heads, 1);
    auto idx = std::make_shared<std::vector<std::size_t>>(std::move(rows));
    if (batch) {
        e.info.shape.push_back(batch);
        e.info.labels.push_back(
            {"batch", [nr, H](std::size_t r) { return std::to_string(r / nr / H); }});
    }
    if (heads) {
        e.info.shape.push_back(heads);
        e.info.labels.push_back(
            {"head", [nr, H](std::size_t r) { return std::to_string(r / nr % H); }});
    }
    for (auto& l : row_labels)
        e.info.labels.push_back(
            {l.name, [idx, nr, f = l.value](std::size_t r) { return f((*idx)[r % nr]); }});
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

}  // namespace attn::io
