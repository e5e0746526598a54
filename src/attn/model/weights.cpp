#include "attn/model/weights.hpp"

#include <stdexcept>

namespace attn::model {

template <class T>
Weights<T>::Weights(const TensorTable& table, const TensorSource& source,
                    std::optional<runtime::Reduced> dtype)
    : table_(table), source_(source), dtype_(dtype) {}

template <class T>
runtime::TensorView Weights<T>::view(Tensor t) const {
    return source_.tensor(table_.spec(t).names, table_.spec(t).shape);
}

template <class T>
const T* Weights<T>::get(Tensor t) {
    if (const auto it = held_.find(t.index); it != held_.end()) return it->second.data();
    const TensorSpec& s = table_.spec(t);
    const runtime::TensorView v = source_.tensor(s.names, s.shape);
    if constexpr (std::is_same_v<T, float>) {
        if (v.is_f32_in_place() && !dtype_) return v.f32().data();
    }
    std::vector<T>& out = held_[t.index];
    out.resize(v.numel());
    if constexpr (std::is_same_v<T, float>)
        v.to_float(out);
    else
        v.to_double(out);
    if (dtype_) runtime::round_all(*dtype_, out.data(), out.size());
    return out.data();
}

template <class T>
void Weights<T>::rows(Tensor t, std::size_t row0, std::size_t count, T* out) const {
    const TensorSpec& s = table_.spec(t);
    const runtime::TensorView v = source_.tensor(s.names, s.shape);
    const std::size_t cols = v.shape.size() == 2 ? v.shape[1] : 1;
    if constexpr (std::is_same_v<T, float>)
        v.to_float(std::span<float>(out, count * cols), row0 * cols);
    else
        v.to_double(std::span<double>(out, count * cols), row0 * cols);
    if (dtype_) runtime::round_all(*dtype_, out, count * cols);
}

template <class T>
void Weights<T>::end_layer(std::size_t layer) {
    const std::vector<TensorSpec>& specs = table_.specs();
    for (std::size_t i = 0; i < specs.size(); ++i) {
        if (specs[i].layer != static_cast<int>(layer)) continue;
        held_.erase(i);
        source_.release(specs[i].names);
    }
}

template class Weights<float>;
template class Weights<double>;

}  // namespace attn::model
