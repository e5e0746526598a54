#include "io/matrix_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "io/number_format.hpp"
#include "runtime/parallel.hpp"

namespace attn::io {

RowBlockProducer row_by_row(std::function<void(std::size_t row, double* out)> fill,
                            std::size_t columns) {
    return [fill = std::move(fill), columns](std::size_t first, std::size_t n, double* out) {
        for (std::size_t k = 0; k < n; ++k) fill(first + k, out + k * columns);
    };
}

MatrixStream table_stream(std::string name, std::string title, std::size_t rows,
                          std::vector<TableColumn> columns, bool as_values) {
    ArrayInfo info;
    info.name = std::move(name);
    info.title = std::move(title);
    info.dtype = Dtype::float64;
    info.table = true;
    std::vector<std::function<double(std::size_t)>> numbers;
    for (TableColumn& c : columns) {
        if (as_values && c.numeric) {
            info.column_labels.push_back(c.name);
            numbers.push_back(std::move(c.value));
        } else if (c.numeric && !c.text) {
            LabelColumn l{c.name, {}, true, std::move(c.value), c.dtype};
            l.value = [number = l.number, dtype = c.dtype](std::size_t r) {
                fmt::memory_buffer b;
                append_number(b, number(r), dtype, std::nullopt);
                return fmt::to_string(b);
            };
            info.labels.push_back(std::move(l));
        } else {
            info.labels.push_back({c.name, std::move(c.text), c.numeric});
        }
    }
    info.shape = {rows, numbers.size()};
    auto fill = [numbers](std::size_t r, double* out) {
        for (std::size_t j = 0; j < numbers.size(); ++j) out[j] = numbers[j](r);
    };
    const std::size_t width = numbers.size();
    return {std::move(info), row_by_row(fill, width)};
}

MatrixStream concatenate(std::vector<MatrixStream> parts, std::string part_label, double pad) {
    MatrixStream out;
    out.info = parts.front().info;
    auto offsets = std::make_shared<std::vector<std::size_t>>();
    std::size_t total = 0, cols = 0;
    bool same_columns = true;
    for (const auto& p : parts) {
        offsets->push_back(total);
        total += p.info.rows();
        cols = std::max(cols, p.info.columns());
        same_columns = same_columns && p.info.column_labels == parts.front().info.column_labels;
    }
    auto shared = std::make_shared<std::vector<MatrixStream>>(std::move(parts));
    auto locate = [offsets](std::size_t r) {
        const auto k = static_cast<std::size_t>(
            std::upper_bound(offsets->begin(), offsets->end(), r) - offsets->begin() - 1);
        return std::pair{k, r - (*offsets)[k]};
    };
    out.info.shape = {total, cols};
    out.info.labels.clear();
    out.info.labels.push_back({std::move(part_label), [locate](std::size_t r) {
                                   return std::to_string(locate(r).first);
                               }});
    for (std::size_t l = 0; l < shared->front().info.labels.size(); ++l) {
        LabelColumn label = shared->front().info.labels[l];
        label.value = [shared, locate, l](std::size_t r) {
            const auto [k, local] = locate(r);
            return (*shared)[k].info.labels[l].value(local);
        };
        if (label.number)
            label.number = [shared, locate, l](std::size_t r) {
                const auto [k, local] = locate(r);
                return (*shared)[k].info.labels[l].number(local);
            };
        out.info.labels.push_back(std::move(label));
    }
    if (!same_columns) {
        out.info.column_labels.clear();
        for (std::size_t j = 0; j < cols; ++j) out.info.column_labels.push_back(std::to_string(j));
    }
    // Pictures: a panel per part (per panel of each part) where the parts are alike, else
    // one; a part's masked cells, and its padding, are masked.
    const ArrayInfo& first = shared->front().info;
    const std::size_t part_rows = first.rows(), part_panel = first.panel_rows;
    const bool alike = std::all_of(shared->begin(), shared->end(), [&](const MatrixStream& p) {
        return p.info.rows() == part_rows && p.info.panel_rows == part_panel;
    });
    out.info.panel_titles.clear();
    out.info.panel_rows = 0;
    if (alike && part_rows > 0 && (part_panel == 0 || part_rows % part_panel == 0)) {
        out.info.panel_rows = part_panel == 0 ? part_rows : part_panel;
        for (std::size_t k = 0; k < shared->size(); ++k) {
            const ArrayInfo& info = (*shared)[k].info;
            for (std::size_t q = 0; q < part_rows / out.info.panel_rows; ++q)
                out.info.panel_titles.push_back(
                    q < info.panel_titles.size()
                        ? fmt::format("{} {}, {}", out.info.labels.front().name, k,
                                      info.panel_titles[q])
                        : fmt::format("{} {}", out.info.labels.front().name, k));
        }
    }
    if (std::any_of(shared->begin(), shared->end(),
                    [&](const MatrixStream& p) { return p.info.value_range != first.value_range; }))
        out.info.value_range.reset();
    const bool masks = std::any_of(shared->begin(), shared->end(), [cols](const MatrixStream& p) {
        return p.info.masked || p.info.columns() < cols;
    });
    if (masks)
        out.info.masked = [shared, locate](std::size_t r, std::size_t j) {
            const auto [k, local] = locate(r);
            const ArrayInfo& info = (*shared)[k].info;
            return j >= info.columns() || (info.masked && info.masked(local, j));
        };
    auto fill = [shared, locate, cols, pad](std::size_t r, double* row) {
        const auto [k, local] = locate(r);
        const MatrixStream& p = (*shared)[k];
        p.produce(local, 1, row);
        std::fill(row + p.info.columns(), row + cols, pad);
    };
    out.produce = row_by_row(fill, cols);
    return out;
}

std::vector<MatrixStream> join_parts(std::vector<std::vector<MatrixStream>> parts,
                                     const std::string& part_label, bool separate,
                                     const std::vector<double>& pad) {
    std::vector<MatrixStream> out;
    if (separate) {
        for (std::size_t k = 0; k < parts.size(); ++k)
            for (MatrixStream& e : parts[k]) {
                e.info.name += fmt::format("_{}", k);
                e.info.title = fmt::format("{} {}: {}", part_label, k, e.info.title);
                out.push_back(std::move(e));
            }
        return out;
    }
    for (std::size_t j = 0; j < parts.front().size(); ++j) {
        std::vector<MatrixStream> column;
        for (auto& part : parts) column.push_back(std::move(part[j]));
        MatrixStream e = concatenate(std::move(column), part_label, pad[j]);
        e.info.title += ", every " + part_label;
        out.push_back(std::move(e));
    }
    return out;
}

void drive(ArraySink& sink, const MatrixStream& stream, const DriveOptions& options) {
    const ArrayInfo& info = stream.info;
    const std::size_t total = info.rows(), columns = info.columns();
    const std::size_t block = std::max<std::size_t>(options.block_rows, 1);
    sink.begin(info);
    std::vector<double> current, next;
    auto make = [&](std::size_t first, std::vector<double>& out) {
        const std::size_t count = std::min(block, total - first);
        out.resize(count * columns);
        stream.produce(first, count, out.data());
    };
    if (total > 0) make(0, current);
    for (std::size_t first = 0; first < total; first += block) {
        const std::size_t following = first + block;
        const auto write = [&] {
            sink.rows(first, current.data(), std::min(block, total - first));
        };
        if (following >= total) {
            write();
        } else if (options.compute_ahead) {
            runtime::overlap(write, [&] { make(following, next); });
        } else {
            write();
            make(following, next);
        }
        std::swap(current, next);
    }
    sink.end();
}

void drive(ArraySink& sink, const std::vector<MatrixStream>& streams, const DriveOptions& options) {
    for (const MatrixStream& s : streams) drive(sink, s, options);
}

}  // namespace attn::io
