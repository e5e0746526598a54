// Cost of one layer that maps n tokens of width d to n tokens of width d: convolution,
// dilated convolution, recurrence, self-attention and restricted self-attention
// (d2l 11.6.2 "Comparing CNNs, RNNs, and Self-Attention"; Vaswani et al. 2017, Table 1).
// The symbolic table, exact counts for given sizes and the crossover lengths; the kernels
// that run each layer to time it are in complexity_timing.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace attn {

/// The rows of the comparison. Stable names (layer_name) are the table's row labels.
enum class Layer {
    convolution,
    dilated_convolution,
    recurrent,
    self_attention,
    restricted_self_attention
};

/// All rows, in table order.
inline constexpr std::array<Layer, 5> kLayers = {Layer::convolution, Layer::dilated_convolution,
                                                 Layer::recurrent, Layer::self_attention,
                                                 Layer::restricted_self_attention};

/// "convolution", "dilated_convolution", "recurrent", "self_attention",
/// "restricted_self_attention".
std::string_view layer_name(Layer layer);
/// Inverse of layer_name; throws std::invalid_argument naming the unknown row and the known ones.
Layer parse_layer(std::string_view name);

/// One row of Table 1 as printed in the chapter / the paper (n tokens, width d,
/// kernel k, neighbourhood r):
///   convolution                O(k n d^2)  O(1)  O(n/k)
///   dilated_convolution        O(k n d^2)  O(1)  O(log_k(n))
///   recurrent                  O(n d^2)    O(n)  O(n)
///   self_attention             O(n^2 d)    O(1)  O(1)
///   restricted_self_attention  O(r n d)    O(1)  O(n/r)
struct SymbolicRow {
    Layer layer;
    std::string_view complexity;
    std::string_view sequential_operations;
    std::string_view maximum_path_length;
};
const std::array<SymbolicRow, 5>& symbolic_table();

/// Sizes of one layer. n tokens, d = input width = output width (channels, hidden size,
/// d_model), k = convolution kernel size, r = neighbourhood of restricted attention.
/// with_projections adds the attention projections W_q, W_k, W_v and W_o (see multiply_adds);
/// it changes only the two attention rows. Valid: n, d, k >= 1, r >= 0.
struct LayerSizes {
    std::uint64_t n = 1;
    std::uint64_t d = 1;
    std::uint64_t k = 3;
    std::uint64_t r = 2;
    bool with_projections = false;
};

/// Throws std::invalid_argument naming the size when n, d or k is 0.
void validate_sizes(const LayerSizes& sizes);

/// Multiply-adds of one forward pass of one layer: the scalar products a*b that are summed
/// in its matrix products. Biases, softmax, tanh, the 1/sqrt(d) scale and the adds of the
/// residual are not counted. FLOPs ~ 2 * multiply_adds.
///   convolution:          n k d^2   1-D convolution, d in and d out channels, kernel k,
///                                   stride 1, "same" zero padding (k-1 zeros in all,
///                                   floor((k-1)/2) on the left) so there are n outputs.
///                                   Every tap is counted, also taps that read padding: the
///                                   im2col + gemm kernel multiplies those zeros too. So
///                                   k >= n still costs n k d^2.
///   dilated_convolution:  n k d^2   one layer of the stack; its dilation moves the taps,
///                                   it does not change their number.
///   recurrent:           2 n d^2    h_t = tanh(W h_{t-1} + U x_t), t = 1..n, h_0 = 0:
///                                   W h_{t-1} and U x_t are both counted at every step
///                                   (also W h_0 at t = 1, which the kernel executes).
///   self_attention:      2 n^2 d    softmax(Q K^T / sqrt(d)) V: Q K^T is n*n*d, the product
///                                   with V another n*n*d. Q, K, V are given (n x d).
///   restricted_self_attention:      query i attends to the r + 1 keys of its window
///                        2 d p      [i - floor(r/2), i + ceil(r/2)] clipped to [0, n)
///                                   (itself and r neighbours, centred like a "same"
///                                   convolution of kernel r + 1, no padded keys).
///                                   p = number of (query, key) pairs =
///                                   n + S(floor(r/2)) + S(ceil(r/2)) with
///                                   S(a) = sum_{i<n} min(i, a) = m(m+1)/2 + m(n-1-m),
///                                   m = min(a, n-1). r >= 2(n-1) gives p = n^2 (full).
///   with_projections adds 4 n d^2 to the attention rows: Q = X W_q, K = X W_k, V = X W_v
///   and the output projection Y W_o, each (n x d)(d x d). The other rows are unchanged.
/// Throws std::overflow_error naming the count when it does not fit in 64 bits.
std::uint64_t multiply_adds(Layer layer, const LayerSizes& sizes);

/// Operations of one layer that must run one after another: n for recurrent (each
/// h_t needs h_{t-1}), 1 for every other row (all n outputs are independent).
std::uint64_t sequential_steps(Layer layer, const LayerSizes& sizes);

/// Maximum path length: over all pairs of distinct positions i != j, the fewest
/// position-to-position hops that connect them, maximised (the worst pair is always the
/// first and last token). For stacked rows a hop is one layer of a stack as deep as
/// needed, and L layers connect x_1 and x_n when one output of layer L has both in its
/// receptive field (the chapter's criterion: x1 and x5 lie in the receptive field of a
/// two-layer CNN with k = 3). For the recurrent layer a hop is one transition h_{t-1} -> h_t
/// (the x_t -> h_t edges do not change position, as the input edge of the other rows).
///   convolution:                ceil((n-1)/(k-1))   one layer widens the field by k-1
///   dilated_convolution:        min L with k^L >= n = ceil(log_k n), exact in integers;
///                               the stack uses dilations 1, k, k^2, ..., so L layers see
///                               offsets sum_l t_l k^l, t_l in [0, k): all of [0, k^L)
///   recurrent:                  n - 1               h_1 -> h_2 -> ... -> h_n
///   self_attention:             1                   every query sees every key
///   restricted_self_attention:  ceil((n-1)/r)       a window of r+1 keys widens by r
/// n = 1 has no pair of distinct positions: 0 for every row. k = 1 (convolutions) and r = 0
/// (restricted) never connect two positions: std::nullopt ("infinite") when n >= 2.
/// k >= n and r >= n-1 give 1 (n >= 2).
std::optional<std::uint64_t> maximum_path_length(Layer layer, const LayerSizes& sizes);

/// Floats a forward pass keeps besides its input X (n x d) and its weights: the output and
/// what training keeps for the backward pass. Kernel workspace is not included (the im2col
/// buffer of the convolution kernel below holds another n k d floats).
///   convolution, dilated_convolution:  n d          the output
///   recurrent:                         n d          h_1 .. h_n (the output)
///   self_attention:                    n^2 + n d    softmax weights (n x n) + output
///   restricted_self_attention:         p + n d      the p windowed weights + output
///   with_projections (attention rows): + 4 n d      Q, K, V and the attention output
///                                                   before W_o
/// Throws std::overflow_error when the count does not fit in 64 bits.
std::uint64_t activation_floats(Layer layer, const LayerSizes& sizes);

/// Every count of one row for the given sizes.
struct LayerCounts {
    Layer layer;
    LayerSizes sizes;
    std::uint64_t multiply_adds;
    std::uint64_t sequential_steps;
    std::optional<std::uint64_t> path_length;  // nullopt = never connected ("infinite")
    std::uint64_t activation_floats;
};
LayerCounts layer_counts(Layer layer, const LayerSizes& sizes);

/// The smallest n >= 1 at which self-attention costs more multiply-adds than `other`
/// (recurrent, convolution or dilated_convolution) for width d and kernel k.
/// Dividing both counts by n d > 0:
///   attention 2 n^2 d + P n d^2  >  other c n d^2   <=>   n > (c - P) d / 2
/// with c = 2 (recurrent) or k (convolutions), P = 4 with projections, 0 without. So
/// without projections: n > d against the recurrent layer, n > k d / 2 against a
/// convolution (the chapter's "n > k d" drops the factor 2 of attention's two products).
/// Result: floor((c - P) d / 2) + 1, or 1 when c <= P.
/// Throws std::invalid_argument for another row or d, k == 0; std::overflow_error.
std::uint64_t attention_crossover(Layer other, std::uint64_t d, std::uint64_t k,
                                  bool with_projections = false);

/// Least-squares slope b of log y = a + b log x (natural logs): the exponent of a power law
/// y = c x^b. Needs >= 2 points, equal lengths, all values positive and finite, and not
/// all x equal; otherwise throws std::invalid_argument.
double fit_exponent(std::span<const double> xs, std::span<const double> ys);

}  // namespace attn
