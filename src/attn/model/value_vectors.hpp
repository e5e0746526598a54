// Attention weighed by what the values carry (Kobayashi et al. 2020, "Attention is not only a
// weight"): head h moves A_h[i, j] f_h(x_j) from key j into query i, where
//   f_h(x_j) = (x_j W_V^g + b_V^g) W_O^h = v_g[j] W_O^h        (d)
// v_g the head's value vectors (g = h / (H / G) under grouped K/V), W_O^h the head's hd rows of
// the output projection (in, out orientation), the output bias left out. Per layer:
//   norms[j, h]     = ||f_h(x_j)||_2                             (n, H)
//   gram[j, h, h']  = f_h(x_j) . f_h'(x_j)                       (n, H, H)
//   value_norms[h, i, j]  = A_h[i, j] norms[j, h]
//   value_weights[i, j]   = ||sum_h A_h[i, j] f_h(x_j)||_2
//                         = sqrt(sum_{h, h'} A_h[i, j] A_h'[i, j] gram[j, h, h']),
//                           each row then divided by its sum
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "attn/attention/layer.hpp"

namespace attn::model {

/// One layer's value vectors' norms and Gram matrices (above), in double.
struct ValueVectors {
    std::size_t n = 0, heads = 0;
    std::vector<double> norms;  // n x H
    std::vector<double> gram;   // n x H x H
    double norm(std::size_t j, std::size_t h) const { return norms[j * heads + h]; }
};

/// f_h for the H query heads of v (G views (n, hd), G dividing H) and the output projection
/// (H hd -> d, either layout; its bias unused).
template <class T>
ValueVectors value_vectors(const std::vector<MatrixRef<T>>& v, std::size_t H,
                           const Projection<T>& output);

/// value_weights (n x n, rows normalised; a row of zeros stays zero) from the H heads' weights
/// (weights[h] row-major n x n).
template <class T>
std::vector<double> value_weights(const ValueVectors& f, const std::vector<const T*>& weights);

}  // namespace attn::model
