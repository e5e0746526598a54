// The fused kernel's rows that PyTorch's softmax makes NaN: a score that is NaN or +inf, made
// from a non-finite q_i or k_j, which the kernels' exp2 would turn into a number. bad_keys: the
// rows of K holding a NaN or inf, increasing (found once per problem).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "attn/attention/tiled.hpp"

namespace attn::tiled_detail {

// Whether a (rows, cols) row-major block (row stride `stride`) holds a NaN or inf.
template <class T>
bool any_nonfinite(const T* data, std::size_t rows, std::size_t cols, std::size_t stride) {
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            if (!std::isfinite(data[r * stride + c])) return true;
    return false;
}

// A score that is NaN or +inf makes its row's softmax NaN in PyTorch, and the kernels' exp2
// would turn it into a number; -inf is a weight of 0 there as here. Such a score needs a
// non-finite q_i or k_j: for each context row i whose Q row holds one, or that sees a key
// whose K row does (j < the row's key end), the scores
// scale q_i . k_j of those keys (of every key it sees when q_i holds one) are made one at a
// time, and the row is NaN when one is NaN or +inf. (A NaN or inf in V reaches the context
// through P V as it does through W V.) Rows [row0, row0 + rows) of out (row stride
// out_stride, out the whole context's first row).
template <class T>
void nonfinite_rows(const Problem<T>& p, MatrixRef<T> k, const std::vector<std::size_t>& bad_keys,
                    std::size_t row0, std::size_t rows, T* out, std::size_t out_stride) {
    for (std::size_t i = row0; i < row0 + rows; ++i) {
        std::size_t end = std::min(p.valid_len, p.n_k);  // the keys it sees: a fill value
        if (p.causal && i + 1 < end) end = i + 1;        // replaces the others' scores
        const T* q = p.q + i * p.q_stride;
        const bool bad_q = any_nonfinite(q, 1, p.d_k, 1);
        if (!bad_q && (bad_keys.empty() || bad_keys.front() >= end)) continue;
        const auto nan_score = [&](std::size_t j) {
            T s = 0;
            for (std::size_t c = 0; c < p.d_k; ++c) s += q[c] * k.data[j * k.stride + c];
            s *= p.scale;
            return std::isnan(s) || s == std::numeric_limits<T>::infinity();
        };
        bool nan = false;
        if (bad_q)
            for (std::size_t j = 0; j < end && !nan; ++j) nan = nan_score(j);
        else
            for (std::size_t x = 0; x < bad_keys.size() && bad_keys[x] < end && !nan; ++x)
                nan = nan_score(bad_keys[x]);
        if (nan) std::fill_n(out + i * out_stride, p.d_v, std::numeric_limits<T>::quiet_NaN());
    }
}

}  // namespace attn::tiled_detail
