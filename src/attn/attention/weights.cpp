#include "attn/attention/weights.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "runtime/finite.hpp"
#include "runtime/shape_tuple.hpp"

namespace attn {

std::size_t head_width(const std::vector<std::size_t>& shape, std::size_t heads) {
    if (heads == 0) return 0;
    if (shape.size() == 3) return shape[0] == heads ? shape[2] : 0;
    if (shape.size() == 2) return shape[1] % heads == 0 ? shape[1] / heads : 0;
    return 0;
}

GivenWidths given_widths(const GivenWeights& given, std::size_t heads) {
    const auto width = [heads](const std::optional<GivenTensor>& t) {
        return t ? head_width(t->shape, heads) : 0;
    };
    return {given.query ? width(given.query) : width(given.key), width(given.value)};
}

WeightShapeError::WeightShapeError(Weight w, const std::string& what)
    : std::invalid_argument(what), weight(w) {}

WeightDraws weight_draws(const GivenWeights& given, std::size_t heads, std::size_t d_in,
                         std::size_t d_q, std::size_t d_k, std::size_t d_v,
                         std::optional<std::size_t> d_out, bool bias) {
    WeightDraws draws;
    draws.heads = heads, draws.d_in = d_in, draws.bias = bias;
    draws.d_query = d_q, draws.d_key = d_k, draws.d_value = d_v, draws.d_out = d_out;
    draws.query = !given.query, draws.key = !given.key, draws.value = !given.value;
    draws.out = !given.out;
    return draws;
}

std::optional<std::size_t> check_given_weights(const GivenWeights& given, std::size_t heads,
                                               std::size_t d_in, std::size_t d_q, std::size_t d_k,
                                               std::size_t d_v) {
    using Weight = WeightShapeError::Weight;
    const auto name = [](const GivenTensor& t, const char* matrix) {
        return t.name.empty() ? std::string(matrix) : t.name;
    };
    // (d_in, H d) or (H, d_in, d)
    const auto check = [&](const std::optional<GivenTensor>& t, std::size_t d, Weight w,
                           const char* matrix, const char* width) {
        if (!t) return;
        const auto& sh = t->shape;
        if ((sh.size() == 2 && sh[0] == d_in && sh[1] == heads * d) ||
            (sh.size() == 3 && sh[0] == heads && sh[1] == d_in && sh[2] == d))
            return;
        throw WeightShapeError(
            w, fmt::format("{} has shape {}; {} head{} with d_in = {} and {} = {} need ({}, {}){}",
                           name(*t, matrix), runtime::shape_tuple(sh), heads, heads > 1 ? "s" : "",
                           d_in, width, d, d_in, heads * d,
                           heads > 1 ? fmt::format(" or ({}, {}, {})", heads, d_in, d) : ""));
    };
    // every value a finite number (runtime::check_finite)
    const auto finite = [&](const std::optional<GivenTensor>& t, Weight w, const char* matrix) {
        if (!t) return;
        try {
            runtime::check_finite(t->values, t->shape, name(*t, matrix));
        } catch (const std::invalid_argument& e) {
            throw WeightShapeError(w, e.what());
        }
    };
    check(given.query, d_q, Weight::query, "W_q", "d_q");
    finite(given.query, Weight::query, "W_q");
    check(given.key, d_k, Weight::key, "W_k", "d_k");
    finite(given.key, Weight::key, "W_k");
    check(given.value, d_v, Weight::value, "W_v", "d_v");
    finite(given.value, Weight::value, "W_v");
    if (!given.out) return std::nullopt;
    const auto& sh = given.out->shape;  // (H d_v, d_out)
    if (sh.size() != 2 || sh[0] != heads * d_v || sh[1] == 0)
        throw WeightShapeError(
            Weight::out,
            fmt::format(
                "{} has shape {}; W_o needs {} rows (heads x d_v) and any number of columns",
                name(*given.out, "W_o"), runtime::shape_tuple(sh), heads * d_v));
    finite(given.out, Weight::out, "W_o");
    return sh[1];
}

template <class T>
xt::xtensor<T, 2> head_block(const GivenTensor& t, std::size_t h, std::size_t heads) {
    const auto& sh = t.shape;
    const std::size_t d = head_width(sh, heads);
    if (d == 0 || h >= heads) throw std::invalid_argument("head_block: not a tensor of heads");
    const std::size_t d_in = sh.size() == 3 ? sh[1] : sh[0];
    // (H, d_in, d): block h starts at h d_in d, rows d apart; (d_in, H d): at h d, rows H d apart
    const std::size_t start = sh.size() == 3 ? h * d_in * d : h * d;
    const std::size_t stride = sh.size() == 3 ? d : sh[1];
    xt::xtensor<T, 2> w = xt::xtensor<T, 2>::from_shape({d_in, d});
    for (std::size_t i = 0; i < d_in; ++i)
        for (std::size_t j = 0; j < d; ++j)
            w(i, j) = static_cast<T>(t.values[start + i * stride + j]);
    return w;
}

template <class T>
LayerWeights<T> AttentionWeights<T>::views() const {
    const auto projection = [](const xt::xtensor<T, 2>& w,
                               const std::optional<xt::xtensor<T, 1>>& b) {
        return Projection<T>{{w.data(), w.shape(0), w.shape(1), w.shape(1)},
                             WeightLayout::in_out,
                             b ? b->data() : nullptr};
    };
    LayerWeights<T> v;
    for (std::size_t h = 0; h < query.size(); ++h) {
        v.query.push_back(projection(query[h], b_query[h]));
        v.key.push_back(projection(key[h], b_key[h]));
        v.value.push_back(projection(value[h], b_value[h]));
    }
    if (out) v.output = projection(*out, b_out);
    return v;
}

template <class T>
void AttentionWeights<T>::round_to(runtime::Reduced format) {
    const auto round = [format](auto& m) { runtime::round_all(format, m.data(), m.size()); };
    for (auto* list : {&query, &key, &value})
        for (auto& m : *list) round(m);
    for (auto* list : {&b_query, &b_key, &b_value})
        for (auto& b : *list)
            if (b) round(*b);
    if (out) round(*out);
    if (b_out) round(*b_out);
}

template <class T>
AttentionWeights<T> attention_weights(const DrawnWeights& drawn, const GivenWeights& given,
                                      std::size_t heads, bool with_out) {
    // head h's block of a given tensor (W_o: one block), else the draw, in T
    const auto take = [](const std::optional<GivenTensor>& g,
                         const std::optional<xt::xtensor<float, 2>>& d, std::size_t h,
                         std::size_t of) {
        if (g) return head_block<T>(*g, h, of);
        if (!d) throw std::invalid_argument("attention_weights: a matrix neither given nor drawn");
        return xt::xtensor<T, 2>(xt::cast<T>(*d));
    };
    const auto bias = [](const std::optional<xt::xtensor<float, 1>>& b) {
        return b ? std::optional(xt::xtensor<T, 1>(xt::cast<T>(*b))) : std::nullopt;
    };
    if (drawn.query.size() != heads || drawn.key.size() != heads || drawn.value.size() != heads ||
        drawn.b_query.size() != heads || drawn.b_key.size() != heads ||
        drawn.b_value.size() != heads)
        throw std::invalid_argument("attention_weights: draws of another head count");
    AttentionWeights<T> w;
    for (std::size_t h = 0; h < heads; ++h) {
        w.query.push_back(take(given.query, drawn.query[h], h, heads));
        w.key.push_back(take(given.key, drawn.key[h], h, heads));
        w.value.push_back(take(given.value, drawn.value[h], h, heads));
        w.b_query.push_back(bias(drawn.b_query[h]));
        w.b_key.push_back(bias(drawn.b_key[h]));
        w.b_value.push_back(bias(drawn.b_value[h]));
    }
    if (with_out) w.out = take(given.out, drawn.out, 0, 1);
    w.b_out = bias(drawn.b_out);
    return w;
}

template xt::xtensor<float, 2> head_block<float>(const GivenTensor&, std::size_t, std::size_t);
template xt::xtensor<double, 2> head_block<double>(const GivenTensor&, std::size_t, std::size_t);
template struct AttentionWeights<float>;
template struct AttentionWeights<double>;
template AttentionWeights<float> attention_weights<float>(const DrawnWeights&, const GivenWeights&,
                                                          std::size_t, bool);
template AttentionWeights<double> attention_weights<double>(const DrawnWeights&,
                                                            const GivenWeights&, std::size_t, bool);

}  // namespace attn
