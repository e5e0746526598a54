// Projection matrices drawn from the torch generator, as the notebook and the book draw them.
#pragma once

#include <cstddef>

#include <xtensor/xtensor.hpp>

#include "attn/torch_random.hpp"

namespace attn {

/// How a projection W (d_in, d_out), applied as X W, is drawn (always in float32, as PyTorch):
///   rand:   torch.rand(d_in, d_out), U[0, 1): the notebook's nn.Parameter(torch.rand(...)).
///   linear: nn.Linear(d_in, d_out, bias=False).weight (d_out, d_in), kaiming-uniform in
///           (-1/sqrt(d_in), 1/sqrt(d_in)); returned transposed, since the layer computes
///           x W^T. The book's MultiHeadAttention initialises W_q, W_k, W_v, W_o this way.
enum class ProjectionInit { rand, linear };

/// Draws one projection; consumes d_in * d_out u32 from gen. Returns (d_in, d_out).
/// Throws std::invalid_argument if d_in or d_out is 0.
xt::xtensor<float, 2> draw_projection(TorchGenerator& gen, std::size_t d_in, std::size_t d_out,
                                      ProjectionInit init);

}  // namespace attn
