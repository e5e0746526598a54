// One sequence a layer attends over, as attn attend assembles it: a sentence's tokens, their
// ids in the sentence's vocabulary and their embedded rows, or rows given as they are, with
// an optional batch axis; its permutation X[p]; the masks of each batch element; the layer
// run over each batch element (attend_sequence).
//
//   tokens  t_0 .. t_{n-1};  vocab = sorted unique tokens;  ids_i = index of t_i in vocab
//   x_b     (n, d_in) per batch element b (one when there is no batch axis)
//   result_b = forward(x_b[p]);  equivariance_b = context(x_b[p]) - context(x_b)[p]
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"
#include "attn/attention/reference.hpp"
#include "attn/positions/scheme.hpp"

namespace attn {

struct Sequence {
    std::vector<std::string> tokens;  // empty for rows given as they are: labels are positions
    std::vector<std::size_t> ids;     // (n,) into vocab
    std::vector<std::string> vocab;   // sorted, unique
    std::size_t batch = 0;            // 0: no batch axis; else b
    std::vector<xt::xtensor<double, 2>> x;  // per batch element (n, d_in), exact input values
    std::size_t n() const { return x.front().shape(0); }
    std::size_t d_in() const { return x.front().shape(1); }
};

/// Rows given as they are, row-major values of shape (n, d) (batch 0) or (b, n, d) (batch b).
/// std::invalid_argument for another rank, a 0 in the shape, a count that is not its product
/// or a value that is not finite, or above `largest` of the narrower `dtype` the layer will
/// compute in (runtime::check_finite), its message naming `where` ("X.npy: shape (6,); expected
/// rows (n, d) or ...", "X.npy: element (1, 0) is nan; attention needs finite numbers").
Sequence rows_sequence(std::span<const double> values, std::span<const std::size_t> shape,
                       const std::string& where = "rows",
                       double largest = std::numeric_limits<double>::max(),
                       std::string_view dtype = "float64");

/// tokens with their vocabulary and ids, no rows yet. Throws std::invalid_argument when
/// tokens is empty.
Sequence token_sequence(std::vector<std::string> tokens);

/// s with its rows (every batch element alike), tokens and ids reordered: row i is old row
/// p[i] (numpy's X[p]). std::invalid_argument when p is not a permutation of 0..n-1.
Sequence permuted(const Sequence& s, std::span<const std::size_t> p);

/// The mask of every batch element of every sequence, [sequence][element]: `base` (causal,
/// fill), with valid_len from `valid`: empty (none), one length for all, or one per element
/// in order (std::invalid_argument for another count: "2 lengths for 3 sequences; ...").
std::vector<std::vector<MaskOptions>> sequence_masks(const std::vector<Sequence>& seqs,
                                                     const MaskOptions& base,
                                                     std::span<const std::size_t> valid);

/// Everything one sequence's layer computes, per batch element b.
template <class T>
struct SequenceResult {
    std::vector<xt::xtensor<T, 2>> x;     // [b] x_b[p] as attended, (n, d_in), in options.dtype
    std::vector<MaskOptions> masks;       // [b]
    std::vector<LayerResult<T>> results;  // [b] forward over x_b[p]
    std::vector<xt::xtensor<T, 2>> equivariance;  // [b] (n, d_out); empty when p is empty
    positions::PositionScheme<T> scheme;          // positions 0..n-1 of `config`
    std::optional<double> scale;                  // options.scale
};

/// What bounds the rounding noise of the equivariance context(X[p]) - context(X)[p]: the
/// contexts' largest magnitude, max_b max |output_b|, and the terms of the longest sum that
/// builds one, n + d_in + d_out.
struct SumBound {
    double magnitude = 0;
    std::size_t terms = 0;
};
template <class T>
SumBound equivariance_bound(const SequenceResult<T>& r);

/// The layer over every batch element of s: x_b cast to T (and rounded to options.dtype),
/// permuted by p (empty: none), with masks[b] (one per element) and the scheme made from
/// config for s's n rows; with p, also the equivariance against the rows as given.
template <class T>
SequenceResult<T> attend_sequence(const Sequence& s, std::span<const std::size_t> p,
                                  const LayerWeights<T>& weights,
                                  const positions::SchemeConfig& config,
                                  const std::vector<MaskOptions>& masks, LayerOptions options);

}  // namespace attn
