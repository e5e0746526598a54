#include "attn/model/weights.hpp"

#include <stdexcept>

namespace attn::model {

template <class T>
Weights<T>::Weights(const ModelConfig& config, const TensorSource& source)
    : source_(source), dtype_(config.compute_dtype), specs_(model_tensors(config)) {
    for (std::size_t i = 0; i < specs_.size(); ++i)
        for (const auto& name : specs_[i].names) index_.emplace(name, i);
}

template <class T>
const TensorSpec& Weights<T>::spec(std::string_view name) const {
    const auto it = index_.find(std::string(name));
    if (it == index_.end())
        throw std::logic_error("the family reads no tensor called " + std::string(name));
    return specs_[it->second];
}

template <class T>
bool Weights<T>::has(std::string_view name) const {
    return index_.count(std::string(name)) > 0;
}

template <class T>
runtime::TensorView Weights<T>::view(std::string_view name) const {
    return source_.tensor(spec(name));
}

template <class T>
const T* Weights<T>::get(std::string_view name) {
    const TensorSpec& s = spec(name);
    const std::size_t key = static_cast<std::size_t>(&s - specs_.data());
    if (const auto it = held_.find(key); it != held_.end()) return it->second.data();
    const runtime::TensorView v = source_.tensor(s);
    if constexpr (std::is_same_v<T, float>) {
        if (v.is_f32_in_place() && !dtype_) return v.f32().data();
    }
    std::vector<T>& out = held_[key];
    out.resize(v.numel());
    if constexpr (std::is_same_v<T, float>)
        v.to_float(out);
    else
        v.to_double(out);
    if (dtype_) runtime::round_all(*dtype_, out.data(), out.size());
    return out.data();
}

template <class T>
void Weights<T>::rows(std::string_view name, std::size_t row0, std::size_t count, T* out) const {
    const runtime::TensorView v = source_.tensor(spec(name));
    const std::size_t cols = v.shape.size() == 2 ? v.shape[1] : 1;
    if constexpr (std::is_same_v<T, float>)
        v.to_float(std::span<float>(out, count * cols), row0 * cols);
    else
        v.to_double(std::span<double>(out, count * cols), row0 * cols);
    if (dtype_) runtime::round_all(*dtype_, out, count * cols);
}

template <class T>
void Weights<T>::end_layer(std::size_t layer) {
    for (std::size_t i = 0; i < specs_.size(); ++i) {
        if (specs_[i].layer != static_cast<int>(layer)) continue;
        held_.erase(i);
        source_.release(specs_[i]);
    }
}

template class Weights<float>;
template class Weights<double>;

}  // namespace attn::model
