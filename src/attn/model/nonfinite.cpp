#include "attn/model/nonfinite.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace attn::model {

std::string NonFinite::describe() const {
    std::string where = layer ? fmt::format("layer {}", *layer) : part;
    if (head) where += fmt::format(", head {}", *head);
    where += fmt::format(", position {}", position);
    if (!tensor.empty()) where += fmt::format(" ({} holds a non-finite value)", tensor);
    return where;
}

template <class T>
std::optional<std::pair<std::size_t, std::size_t>> first_nonfinite(const T* data, std::size_t rows,
                                                                   std::size_t cols) {
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            if (!std::isfinite(data[r * cols + c])) return std::pair{r, c};
    return std::nullopt;
}

std::string nonfinite_tensor(const ModelConfig& c, const TensorSource& source,
                             std::optional<std::size_t> layer) {
    const int want = layer ? static_cast<int>(*layer) : -1;
    std::vector<float> scratch;
    for (const TensorSpec& spec : model_tensors(c)) {
        if (spec.layer != want) continue;
        runtime::TensorView view;
        try {
            view = source.tensor(spec.names, spec.shape);
        } catch (const std::exception&) {
            continue;  // an optional tensor this checkpoint lacks
        }
        for (const float x : view.floats(scratch))
            if (!std::isfinite(x)) return source.stored_name(spec.names);
    }
    return {};
}

template std::optional<std::pair<std::size_t, std::size_t>> first_nonfinite(const float*,
                                                                            std::size_t,
                                                                            std::size_t);
template std::optional<std::pair<std::size_t, std::size_t>> first_nonfinite(const double*,
                                                                            std::size_t,
                                                                            std::size_t);

}  // namespace attn::model
