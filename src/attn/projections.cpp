#include "attn/projections.hpp"

#include <stdexcept>

#include <xtensor/xmanipulation.hpp>

namespace attn {

xt::xtensor<float, 2> draw_projection(TorchGenerator& gen, std::size_t d_in, std::size_t d_out,
                                      ProjectionInit init) {
    if (d_in == 0 || d_out == 0)
        throw std::invalid_argument("draw_projection: d_in and d_out must be positive");
    if (init == ProjectionInit::rand) return torch_rand<float>(gen, d_in, d_out);   // (d_in, d_out)
    const TorchLinear<float> layer = torch_linear<float>(gen, d_in, d_out, false);  // (d_out, d_in)
    xt::xtensor<float, 2> w = xt::transpose(layer.weight);                          // (d_in, d_out)
    return w;
}

}  // namespace attn
