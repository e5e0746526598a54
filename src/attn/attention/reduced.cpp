#include "attn/attention/reduced.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <xtensor-blas/xlinalg.hpp>

#include "runtime/parallel.hpp"

namespace attn {

namespace {

template <class T>
T fl(runtime::Reduced dtype, T v) {
    return static_cast<T>(runtime::round_to(dtype, static_cast<double>(v)));
}

template <class T>
void round_matrix(runtime::Reduced dtype, xt::xtensor<T, 2>& m) {
    runtime::round_all(dtype, m.data(), m.size());
}

}  // namespace

template <class T>
void add_positions_reduced(const positions::PositionScheme<T>& scheme, runtime::Reduced dtype, T* x,
                           std::size_t rows, std::size_t d) {
    if (scheme.scheme() != positions::Scheme::sinusoidal) return;
    std::vector<T> p(rows * d, T(0));  // P (rows, d) in T, then fl_D
    scheme.add_positions(p.data(), 0, rows, d);
    runtime::round_all(dtype, p.data(), p.size());
    for (std::size_t k = 0; k < rows * d; ++k) x[k] = fl(dtype, x[k] + p[k]);
}

template <class T>
void rotate_reduced(const positions::PositionScheme<T>& scheme, runtime::Reduced dtype, T* m,
                    std::size_t rows, std::size_t d) {
    if (!scheme.rotates()) return;
    // Pair k is (first(k), second(k)): (k, k + r/2) split, (2k, 2k + 1) interleaved, over the
    // first r = rope.d columns (the rotary dimension). Rotating the unit vector (1, 0) of every
    // pair gives (cos, sin) in T, the scheme's own values.
    const bool split = scheme.config().layout == positions::Layout::split;
    const std::size_t rd = scheme.config().rope.d, half = rd / 2;
    const auto first = [&](std::size_t k) { return split ? k : 2 * k; };
    const auto second = [&](std::size_t k) { return split ? k + half : 2 * k + 1; };
    std::vector<T> cs(rows * rd, T(0));  // (rows, r): cos at first(k), sin at second(k)
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t k = 0; k < half; ++k) cs[i * rd + first(k)] = T(1);
    scheme.rotate(cs.data(), 0, rows, rd);
    runtime::round_all(dtype, cs.data(), cs.size());
    for (std::size_t i = 0; i < rows; ++i) {
        T* r = m + i * d;
        const T* e = cs.data() + i * rd;
        for (std::size_t k = 0; k < half; ++k) {
            const T c = e[first(k)], s = e[second(k)];
            const T a = r[first(k)], b = r[second(k)];
            // q cos + rotate_half(q) sin, rotate_half (a, b) = (-b, a)
            r[first(k)] = fl(dtype, fl(dtype, a * c) - fl(dtype, b * s));
            r[second(k)] = fl(dtype, fl(dtype, b * c) + fl(dtype, a * s));
        }
    }
}

template <class T>
AttentionResult<T> reduced_attention(const xt::xtensor<T, 2>& Q, const xt::xtensor<T, 2>& K,
                                     const xt::xtensor<T, 2>& V, const MaskOptions& mask,
                                     const ScoreOptions<T>& score, runtime::Reduced dtype) {
    if (Q.shape(1) != K.shape(1) || K.shape(0) != V.shape(0) || Q.size() == 0 || K.size() == 0 ||
        V.size() == 0)
        throw std::invalid_argument(
            fmt::format("attention: Q ({}, {}), K ({}, {}) and V ({}, {}) do not fit", Q.shape(0),
                        Q.shape(1), K.shape(0), K.shape(1), V.shape(0), V.shape(1)));
    if (mask.fill && (std::isnan(*mask.fill) || *mask.fill == HUGE_VAL))
        throw std::invalid_argument(
            fmt::format("attention: fill value must be a number or -inf, got {}", *mask.fill));
    const std::size_t q = Q.shape(0), k = K.shape(0), d_k = Q.shape(1);
    AttentionResult<T> r;
    r.scores = xt::linalg::dot(Q, xt::transpose(K));  // (q, d_k) x (d_k, k), float32 sums
    round_matrix(dtype, r.scores);
    // scaled = fl(omega / fl(sqrt d_k)) or fl(omega fl(scale)), then fl(scaled + fl(bias))
    const T divisor = fl(dtype, static_cast<T>(std::sqrt(static_cast<double>(d_k))));
    const T factor = fl(dtype, static_cast<T>(score.scale.value_or(1.0)));
    r.scaled = xt::xtensor<T, 2>::from_shape({q, k});
    for (std::size_t i = 0; i < q; ++i)
        for (std::size_t j = 0; j < k; ++j) {
            const T o = r.scores(i, j);
            r.scaled(i, j) = fl(dtype, score.scale ? o * factor : o / divisor);
        }
    if (score.bias.alibi_slope) {
        const T slope = static_cast<T>(*score.bias.alibi_slope);
        for (std::size_t i = 0; i < q; ++i)
            for (std::size_t j = 0; j < k; ++j)
                r.scaled(i, j) =
                    fl(dtype, r.scaled(i, j) + fl(dtype, -slope * T(i > j ? i - j : j - i)));
    }
    if (score.bias.add || score.bias.relative) {
        xt::xtensor<T, 2> bias = xt::zeros<T>({q, k});  // the table's bias (q, k), then fl_D
        if (score.bias.add) score.bias.add(0, 0, q, k, bias.data(), k);
        if (score.bias.relative)  // relative[j - i], e.g. T5's bucket table of this head
            for (std::size_t i = 0; i < q; ++i)
                for (std::size_t j = 0; j < k; ++j)
                    bias(i, j) += score.bias.relative[std::ptrdiff_t(j) - std::ptrdiff_t(i)];
        round_matrix(dtype, bias);
        for (std::size_t e = 0; e < q * k; ++e)
            r.scaled.data()[e] = fl(dtype, r.scaled.data()[e] + bias.data()[e]);
    }
    if (score.softcap) {  // fl(fl(tanh(fl(scaled / fl(cap)))) fl(cap)), as three ops in D
        check_softcap(*score.softcap);
        const T cap = fl(dtype, static_cast<T>(*score.softcap));
        for (std::size_t e = 0; e < q * k; ++e) {
            const T t = fl(dtype, std::tanh(fl(dtype, r.scaled.data()[e] / cap)));
            r.scaled.data()[e] = fl(dtype, t * cap);
        }
    }
    // w = fl(softmax(masked scaled)), the softmax in T over D values
    const std::optional<T> fill =
        mask.fill ? std::optional<T>(fl(dtype, static_cast<T>(*mask.fill))) : std::nullopt;
    const xt::xtensor<bool, 2> hidden = attention_mask(q, k, mask);
    r.weights = xt::xtensor<T, 2>::from_shape({q, k});
    parallel_for(q, softmax_rows_per_thread(k), [&](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) {
            T* w = r.weights.data() + i * k;
            masked_softmax_row(
                k, [&](std::size_t j) { return r.scaled(i, j); },
                [&](std::size_t j) { return hidden(i, j); }, fill, w);
            // A score past the dtype's range (float16: 65504) is +-inf: a row with +inf or NaN
            // among its visible keys, or only -inf, has NaN weights, as PyTorch's softmax gives.
            bool visible = false, nan = false, finite = false;
            for (std::size_t j = 0; j < k; ++j) {
                if (hidden(i, j)) continue;
                const T s = r.scaled(i, j);
                visible = true;
                nan = nan || std::isnan(s) || s == std::numeric_limits<T>::infinity();
                finite = finite || std::isfinite(s);
            }
            if (nan || (visible && !finite))
                std::fill(w, w + k, std::numeric_limits<T>::quiet_NaN());
        }
    });
    round_matrix(dtype, r.weights);
    r.context = xt::linalg::dot(r.weights, V);  // (q, k) x (k, d_v), float32 sums
    round_matrix(dtype, r.context);
    return r;
}

#define ATTN_INSTANTIATE(T)                                                                       \
    template void add_positions_reduced<T>(const positions::PositionScheme<T>&, runtime::Reduced, \
                                           T*, std::size_t, std::size_t);                         \
    template void rotate_reduced<T>(const positions::PositionScheme<T>&, runtime::Reduced, T*,    \
                                    std::size_t, std::size_t);                                    \
    template AttentionResult<T> reduced_attention<T>(                                             \
        const xt::xtensor<T, 2>&, const xt::xtensor<T, 2>&, const xt::xtensor<T, 2>&,             \
        const MaskOptions&, const ScoreOptions<T>&, runtime::Reduced);
ATTN_INSTANTIATE(float)
ATTN_INSTANTIATE(double)
#undef ATTN_INSTANTIATE

}  // namespace attn
