// Permuting a layer's rows and measuring what the permutation does to its output: the
// chapter's point that self-attention alone ignores order. p is a permutation of 0..n-1 and
// new position i holds old row p[i] (numpy's X[p]); positions stay 0..n-1.
//
//   equivariance = context(X[p]) - context(X)[p]                          (n, d_out)
//
// is zero to rounding without positions and masks; masks are positional (causal breaks it),
// and so are position schemes, except those symmetric in |i - j| under p = reverse (alibi
// without causal, t5 with a symmetric table).
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"

namespace attn {

/// n - 1, n - 2, ..., 0.
std::vector<std::size_t> reverse_permutation(std::size_t n);

/// Why indices are not a permutation of 0..n-1: the first index, in order, that is >= n
/// (out_of_range) or seen before (repeated), else their count differs from n (length).
/// what() is the whole sentence, naming the rows as check_permutation's `where`:
///   index 7 is out of range for the sentence (3 rows: 0..2)
///   index 1 is repeated; a permutation of 0..2 names each index once
///   2 indices for the sentence (3 rows); give a permutation of 0..2
struct PermutationError : std::invalid_argument {
    enum class Fault { out_of_range, repeated, length };
    PermutationError(Fault fault, std::size_t value, const std::string& what);
    Fault fault;
    std::size_t value;  // out_of_range, repeated: the index; length: how many were given
};

/// Checks that p is a permutation of 0..n-1; PermutationError otherwise, `where` naming the
/// n rows ("the input", "sentence 2").
void check_permutation(std::span<const std::size_t> p, std::size_t n,
                       const std::string& where = "the rows");

/// x[p], (n, d) -> (n, d): row i is row p[i] of x. p must have x's n entries, each < n
/// (std::invalid_argument otherwise).
template <class T>
xt::xtensor<T, 2> permute_rows(const xt::xtensor<T, 2>& x, std::span<const std::size_t> p);

/// The layer run again on the rows as given (`original`: its input without the permutation;
/// no n x n array kept), against `permuted`, its result on X[p]: permuted.output -
/// forward(original).output[p], (n, d_out).
template <class T>
xt::xtensor<T, 2> equivariance(const LayerResult<T>& permuted, const LayerInput<T>& original,
                               const LayerWeights<T>& weights,
                               const positions::PositionScheme<T>& scheme, LayerOptions options,
                               std::span<const std::size_t> p);

}  // namespace attn
