// y = x W + b for a Projection (layer.hpp): x (n, d_in) with a row stride, W a view stored
// (d_in, d_out) or (d_out, d_in), b (d_out,) or none.
//   blas:    OpenBLAS's gemm (the direct path: the notebook's numbers, as xt::linalg::dot)
//   ordered: row i summed over d_in in order, the same bits for every thread count and
//            instruction set (the tiled path, whose results must not depend on --threads)
#pragma once

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"

namespace attn {

enum class ProjectionSum { blas, ordered };

/// (n, d_out) = x W (+ b). Throws std::invalid_argument when x's width is not W's d_in.
template <class T>
xt::xtensor<T, 2> project(MatrixRef<T> x, const Projection<T>& p, ProjectionSum sum);

}  // namespace attn
