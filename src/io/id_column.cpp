#include "io/id_column.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "io/matrix_stack.hpp"

namespace attn::io {

MatrixStream id_column(IdColumn c, bool binary) {
    const std::size_t n = c.ids.size();
    auto ids = std::make_shared<std::vector<double>>(std::move(c.ids));
    auto tokens = std::make_shared<std::vector<std::string>>(std::move(c.tokens));
    MatrixStream s;
    s.info.name = std::move(c.name);
    s.info.title = std::move(c.title);
    s.info.dtype = Dtype::int64;
    if (binary) {
        s.info.shape = {n};
        s.info.column_labels = index_labels(n);
        if (c.strings) s.info.strings = [tokens] { return *tokens; };
        // one row of n values, whatever rows are asked
        s.produce = [ids](std::size_t, std::size_t, double* out) {
            std::copy(ids->begin(), ids->end(), out);
        };
        return s;
    }
    s.info.shape = {n, 1};
    s.info.column_labels = {"id"};
    if (c.position)
        s.info.labels.push_back(
            {"position", [](std::size_t r) { return std::to_string(r); }, c.numeric_position});
    if (!tokens->empty())
        s.info.labels.push_back({"token", [tokens](std::size_t r) { return (*tokens)[r]; }});
    s.produce = [ids](std::size_t row0, std::size_t rows, double* out) {
        std::copy(ids->begin() + static_cast<std::ptrdiff_t>(row0),
                  ids->begin() + static_cast<std::ptrdiff_t>(row0 + rows), out);
    };
    return s;
}

}  // namespace attn::io
