#include "io/held_array.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

namespace attn::io {

MatrixStream held_array(std::string name, std::vector<std::size_t> shape,
                        std::vector<double> values, Dtype dtype) {
    MatrixStream s;
    s.info.name = std::move(name);
    s.info.title = s.info.name;
    s.info.shape = std::move(shape);
    s.info.dtype = dtype;
    const std::size_t cols = s.info.columns();
    if (values.size() != s.info.rows() * cols)
        throw std::logic_error("held_array: " + s.info.name + ": values do not fill its shape");
    auto data = std::make_shared<const std::vector<double>>(std::move(values));
    s.produce = [data, cols](std::size_t first, std::size_t rows, double* out) {
        std::copy_n(data->begin() + static_cast<std::ptrdiff_t>(first * cols), rows * cols, out);
    };
    return s;
}

MatrixStream held_strings(std::string name, std::vector<std::string> values) {
    const std::size_t count = values.size();
    MatrixStream s = held_array(std::move(name), {count}, std::vector<double>(count));
    auto data = std::make_shared<const std::vector<std::string>>(std::move(values));
    s.info.strings = [data] { return *data; };
    return s;
}

}  // namespace attn::io
