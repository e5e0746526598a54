// attn attend's parameters: W_query, W_key, W_value per head and W_o, read from .npy files or
// drawn from the seed in the notebook's order (head 0 first), and the widths they imply.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"
#include "attn/torch_random.hpp"
#include "cli/attend_options.hpp"
#include "io/npy.hpp"

namespace attn::cli {

// A projection file for H heads of width d: (d_in, d) for one head, (d_in, H d) column
// blocks (head h = columns [h d, (h+1) d), the layout of the book's W^T) or (H, d_in, d).
struct ProjectionFile {
    io::NpyArray a;
    std::size_t width(std::size_t heads) const;  // d as the file implies it, 0 if it cannot
};

/// --wq --wk --wv --wo, those given.
struct ProjectionFiles {
    std::optional<ProjectionFile> q, k, v, o;
};
ProjectionFiles read_projections(const AttendOptions& opt);

/// The widths of one run: from the options, or from the files when the option is absent.
struct Dims {
    std::size_t heads, d_in, dq, dk, dv, d_out;
    bool out_proj;
};
/// Checks every file against the widths (UsageError naming the option).
Dims projection_dims(const AttendOptions& opt, const ProjectionFiles& files, std::size_t d_in);

template <class T>
struct Parameters {
    std::vector<HeadWeights<T>> heads;
    std::optional<xt::xtensor<T, 2>> w_out;
    std::vector<HeadOptions<T>> biases;      // --bias: b_query, b_key, b_value per head; else empty
    std::optional<xt::xtensor<T, 1>> b_out;  // --bias with W_o: (d_out,)
};

/// The files' blocks, or draws after torch.manual_seed(seed) (the notebook seeds again after
/// the embedding): per head W_query, W_key, W_value, then W_o. With --bias each weight is
/// followed by its bias (per head W_q b_q W_k b_k W_v b_v, then W_o b_o): nn.Linear(bias=True)
/// with --init linear (bias U(-1/sqrt(d_in), 1/sqrt(d_in)) after the weight), torch.rand(d)
/// after torch.rand(d_in, d) with --init rand. --bias with a weight file: UsageError.
template <class T>
Parameters<T> make_parameters(const AttendOptions& opt, const ProjectionFiles& files,
                              const Dims& dims, TorchGenerator& gen);

/// par as the layer's weights: views on its matrices and biases (par must outlive them).
template <class T>
LayerWeights<T> layer_weights(const Parameters<T>& par);

}  // namespace attn::cli
