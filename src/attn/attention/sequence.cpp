#include "attn/attention/sequence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <xtensor/xmath.hpp>
#include <xtensor/xtensor.hpp>

#include "attn/attention/permutation.hpp"
#include "attn/tokenizer.hpp"
#include "runtime/finite.hpp"
#include "runtime/parallel.hpp"
#include "runtime/reduced_float.hpp"
#include "runtime/shape_tuple.hpp"

namespace attn {

namespace {

// (n, d) rows of `from` as T, converted exactly; the rows split over the threads, so that the
// new matrix's pages are first touched on all of them. With `within`, whether every value is
// at most `largest` in magnitude (nan is not), found in the same pass.
template <class T>
xt::xtensor<T, 2> rows_as(const double* from, std::size_t n, std::size_t d, bool* within = nullptr,
                          double largest = std::numeric_limits<double>::max()) {
    xt::xtensor<T, 2> x = xt::xtensor<T, 2>::from_shape({n, d});
    std::atomic<bool> all_within{true};
    parallel_for(n, 1024, [&](std::size_t lo, std::size_t hi) {
        bool ok = true;
        for (std::size_t i = lo * d; i < hi * d; ++i) {
            x.data()[i] = static_cast<T>(from[i]);
            ok &= std::fabs(from[i]) <= largest;
        }
        if (!ok) all_within = false;
    });
    if (within) *within = all_within;
    return x;
}

}  // namespace

Sequence rows_sequence(std::span<const double> values, std::span<const std::size_t> shape,
                       const std::string& where, double largest, std::string_view dtype) {
    if ((shape.size() != 2 && shape.size() != 3) ||
        std::find(shape.begin(), shape.end(), 0) != shape.end())
        throw std::invalid_argument(
            fmt::format("{}: shape {}; expected rows (n, d) or a batch (b, n, d), none of them 0",
                        where, runtime::shape_tuple({shape.begin(), shape.end()})));
    if (values.size() !=
        std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>()))
        throw std::invalid_argument(
            fmt::format("{}: {} values for shape {}", where, values.size(),
                        runtime::shape_tuple({shape.begin(), shape.end()})));
    Sequence s;
    s.batch = shape.size() == 3 ? shape[0] : 0;
    const std::size_t b = std::max<std::size_t>(s.batch, 1), n = shape[shape.size() - 2];
    const std::size_t d = shape.back();
    bool within = true;
    for (std::size_t k = 0; k < b; ++k) {  // element k: values[k n d .. (k + 1) n d)
        bool element = true;
        s.x.push_back(rows_as<double>(values.data() + k * n * d, n, d, &element, largest));
        within = within && element;
    }
    if (!within) runtime::check_finite(values, shape, where, largest, dtype);
    return s;
}

Sequence token_sequence(std::vector<std::string> tokens) {
    const Vocabulary vocab(tokens);  // throws for no tokens
    Sequence s;
    s.vocab = vocab.tokens();
    s.ids = vocab.ids(tokens);
    s.tokens = std::move(tokens);
    return s;
}

Sequence permuted(const Sequence& s, std::span<const std::size_t> p) {
    const std::size_t n = s.x.empty() ? s.tokens.size() : s.n();
    try {
        check_permutation(p, n);
    } catch (const PermutationError&) {
        throw std::invalid_argument(
            fmt::format("sequence: p is not a permutation of the {} rows", n));
    }
    Sequence out = s;
    for (auto& x : out.x) x = permute_rows(x, p);
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (!s.tokens.empty()) out.tokens[i] = s.tokens.at(p[i]);
        if (!s.ids.empty()) out.ids[i] = s.ids.at(p[i]);
    }
    return out;
}

std::vector<std::vector<MaskOptions>> sequence_masks(const std::vector<Sequence>& seqs,
                                                     const MaskOptions& base,
                                                     std::span<const std::size_t> valid) {
    std::size_t elements = 0;
    for (const auto& s : seqs) elements += s.x.size();
    if (valid.size() > 1 && valid.size() != elements)
        throw std::invalid_argument(
            fmt::format("{} lengths for {} sequences; give one for all or one per sequence",
                        valid.size(), elements));
    std::vector<std::vector<MaskOptions>> masks;
    std::size_t index = 0;
    for (const auto& s : seqs) {
        auto& per_batch = masks.emplace_back();
        for (std::size_t b = 0; b < s.x.size(); ++b, ++index) {
            MaskOptions& mask = per_batch.emplace_back(base);
            if (!valid.empty()) mask.valid_len = valid.size() == 1 ? valid[0] : valid[index];
        }
    }
    return masks;
}

template <class T>
SequenceResult<T> attend_sequence(const Sequence& s, std::span<const std::size_t> p,
                                  const LayerWeights<T>& weights,
                                  const positions::SchemeConfig& config,
                                  const std::vector<MaskOptions>& masks, LayerOptions options) {
    if (masks.size() != s.x.size())
        throw std::invalid_argument(
            fmt::format("sequence: {} masks for {} batch elements", masks.size(), s.x.size()));
    SequenceResult<T> r;
    r.masks = masks;
    r.scheme = positions::PositionScheme<T>(config, s.n());
    r.scale = options.scale;
    const std::vector<std::size_t> perm(p.begin(), p.end());
    for (std::size_t b = 0; b < s.x.size(); ++b) {
        xt::xtensor<T, 2> x = rows_as<T>(s.x[b].data(), s.n(), s.d_in());  // (n, d_in)
        if (options.dtype) runtime::round_all(*options.dtype, x.data(), x.size());
        LayerInput<T> in;
        in.x = {x.data(), x.shape(0), x.shape(1), x.shape(1)};
        in.permutation = perm;
        options.mask = masks[b];
        r.results.push_back(forward(in, weights, r.scheme, options));
        if (perm.empty()) {
            r.x.push_back(std::move(x));
            continue;
        }
        r.x.push_back(permute_rows(x, p));
        in.permutation.clear();  // context(X[p]) - context(X)[p]
        r.equivariance.push_back(equivariance(r.results.back(), in, weights, r.scheme, options, p));
    }
    return r;
}

template <class T>
SumBound equivariance_bound(const SequenceResult<T>& r) {
    SumBound bound;
    for (const auto& res : r.results)
        bound.magnitude = std::max(bound.magnitude, double(xt::amax(xt::abs(res.output))()));
    bound.terms =
        r.results.front().output.shape(0) + r.x.front().shape(1) + r.equivariance.front().shape(1);
    return bound;
}

template SumBound equivariance_bound(const SequenceResult<float>&);
template SumBound equivariance_bound(const SequenceResult<double>&);

template SequenceResult<float> attend_sequence<float>(const Sequence&, std::span<const std::size_t>,
                                                      const LayerWeights<float>&,
                                                      const positions::SchemeConfig&,
                                                      const std::vector<MaskOptions>&,
                                                      LayerOptions);
template SequenceResult<double> attend_sequence<double>(
    const Sequence&, std::span<const std::size_t>, const LayerWeights<double>&,
    const positions::SchemeConfig&, const std::vector<MaskOptions>&, LayerOptions);

}  // namespace attn
