#include "attn/attention/permutation.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace attn {

std::vector<std::size_t> reverse_permutation(std::size_t n) {
    std::vector<std::size_t> p(n);
    for (std::size_t i = 0; i < n; ++i) p[i] = n - 1 - i;
    return p;
}

PermutationError::PermutationError(Fault f, std::size_t v, const std::string& what)
    : std::invalid_argument(what), fault(f), value(v) {}

void check_permutation(std::span<const std::size_t> p, std::size_t n, const std::string& where) {
    using Fault = PermutationError::Fault;
    const std::string range = n ? fmt::format("0..{}", n - 1) : "no index";
    std::vector<bool> seen(n, false);
    for (const std::size_t v : p) {
        if (v >= n)
            throw PermutationError(
                Fault::out_of_range, v,
                fmt::format("index {} is out of range for {} ({} rows: {})", v, where, n, range));
        if (seen[v])
            throw PermutationError(
                Fault::repeated, v,
                fmt::format("index {} is repeated; a permutation of {} names each index once", v,
                            range));
        seen[v] = true;
    }
    if (p.size() != n)
        throw PermutationError(Fault::length, p.size(),
                               fmt::format("{} indices for {} ({} rows); give a permutation of {}",
                                           p.size(), where, n, range));
}

template <class T>
xt::xtensor<T, 2> permute_rows(const xt::xtensor<T, 2>& x, std::span<const std::size_t> p) {
    const std::size_t n = x.shape(0), d = x.shape(1);
    if (p.size() != n) throw std::invalid_argument("permute_rows: p has another length than x");
    xt::xtensor<T, 2> out = xt::xtensor<T, 2>::from_shape({n, d});
    for (std::size_t i = 0; i < n; ++i) {
        if (p[i] >= n) throw std::invalid_argument("permute_rows: an index beyond x's rows");
        std::copy_n(x.data() + p[i] * d, d, out.data() + i * d);
    }
    return out;
}

template <class T>
xt::xtensor<T, 2> equivariance(const LayerResult<T>& permuted, const LayerInput<T>& original,
                               const LayerWeights<T>& weights,
                               const positions::PositionScheme<T>& scheme, LayerOptions options,
                               std::span<const std::size_t> p) {
    options.keep_scores = options.keep_scaled = options.keep_masked = options.keep_weights = false;
    options.progress = nullptr;
    const xt::xtensor<T, 2> before = forward(original, weights, scheme, options).output;
    return permuted.output - permute_rows(before, p);
}

template xt::xtensor<float, 2> permute_rows(const xt::xtensor<float, 2>&,
                                            std::span<const std::size_t>);
template xt::xtensor<double, 2> permute_rows(const xt::xtensor<double, 2>&,
                                             std::span<const std::size_t>);
template xt::xtensor<float, 2> equivariance(const LayerResult<float>&, const LayerInput<float>&,
                                            const LayerWeights<float>&,
                                            const positions::PositionScheme<float>&, LayerOptions,
                                            std::span<const std::size_t>);
template xt::xtensor<double, 2> equivariance(const LayerResult<double>&, const LayerInput<double>&,
                                             const LayerWeights<double>&,
                                             const positions::PositionScheme<double>&, LayerOptions,
                                             std::span<const std::size_t>);

}  // namespace attn
