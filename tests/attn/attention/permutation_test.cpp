// attn::check_permutation (the first fault of indices as a permutation of 0..n-1),
// attn::permute_rows and attn::equivariance: X[p] as numpy indexes it, and the layer's output
// on permuted rows against its output permuted: zero to rounding without positions or masks,
// not with a causal mask, exactly the layer's own difference otherwise.
#include "attn/attention/permutation.hpp"

#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <xtensor/xmath.hpp>

#include "attn/attention/weights.hpp"

namespace {

// A layer of 2 heads over (n, 4) rows, entries sin and cos of their index.
struct Layer {
    std::size_t n = 6;
    xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({6, 4});
    attn::AttentionWeights<double> w;
    Layer() {
        for (std::size_t k = 0; k < x.size(); ++k) x.data()[k] = std::sin(0.7 * double(k));
        for (std::size_t h = 0; h < 2; ++h) {
            xt::xtensor<double, 2> m = xt::xtensor<double, 2>::from_shape({4, 3});
            for (std::size_t k = 0; k < m.size(); ++k) m.data()[k] = std::cos(double(k + 5 * h));
            w.query.push_back(m), w.key.push_back(m * 0.5), w.value.push_back(m * m);
            w.b_query.emplace_back(), w.b_key.emplace_back(), w.b_value.emplace_back();
        }
    }
    attn::LayerInput<double> input(const std::vector<std::size_t>& p = {}) const {
        attn::LayerInput<double> in;
        in.x = {x.data(), n, 4, 4};
        in.permutation = p;
        return in;
    }
};

double largest(const xt::xtensor<double, 2>& m) {
    return xt::amax(xt::abs(m))();
}

}  // namespace

TEST_CASE("permute_rows: row i of X[p] is row p[i] of X") {
    const xt::xtensor<float, 2> x{{0, 1}, {10, 11}, {20, 21}};
    const std::vector<std::size_t> p{2, 0, 1};
    CHECK(attn::permute_rows(x, p) == xt::xtensor<float, 2>{{20, 21}, {0, 1}, {10, 11}});
    CHECK(attn::reverse_permutation(3) == std::vector<std::size_t>{2, 1, 0});
    CHECK_THROWS_AS(attn::permute_rows(x, std::vector<std::size_t>{0, 1}), std::invalid_argument);
    CHECK_THROWS_AS(attn::permute_rows(x, std::vector<std::size_t>{0, 1, 3}),
                    std::invalid_argument);
}

TEST_CASE(
    "equivariance: zero to rounding without positions and masks, 0 ulp away from the "
    "layer's own difference") {
    const Layer l;
    const std::vector<std::size_t> p{3, 1, 5, 0, 2, 4};
    const attn::positions::PositionScheme<double> none;
    attn::LayerOptions o;
    const auto views = l.w.views();
    const auto on_permuted = attn::forward(l.input(p), views, none, o);
    const auto gap = attn::equivariance(on_permuted, l.input(), views, none, o, p);
    const auto plain = attn::forward(l.input(), views, none, o).output;
    CHECK(gap == on_permuted.output - attn::permute_rows(plain, p));
    MESSAGE(fmt::format("no masks: max |gap| = {:.3g}", largest(gap)));
    CHECK(largest(gap) < 1e-14);

    o.mask.causal = true;  // the mask is positional: order matters again
    const auto causal = attn::forward(l.input(p), views, none, o);
    const auto broken = attn::equivariance(causal, l.input(), views, none, o, p);
    MESSAGE(fmt::format("causal: max |gap| = {:.3g}", largest(broken)));
    CHECK(largest(broken) > 1e-3);
    // the tiled path gives the same gap, to rounding
    o.path = attn::AttentionPath::tiled;
    const auto tiled =
        attn::equivariance(attn::forward(l.input(p), views, none, o), l.input(), views, none, o, p);
    CHECK(largest(tiled - broken) < 1e-12);
}

TEST_CASE("check_permutation: the first fault in order, then the length") {
    using Fault = attn::PermutationError::Fault;
    const auto fault = [](std::vector<std::size_t> p, std::size_t n) {
        try {
            attn::check_permutation(p, n);
        } catch (const attn::PermutationError& e) {
            return std::optional(std::pair(e.fault, e.value));
        }
        return std::optional<std::pair<Fault, std::size_t>>();
    };
    CHECK(!fault({2, 0, 1}, 3));
    CHECK(!fault({}, 0));
    CHECK(fault({0, 3, 1}, 3) == std::pair(Fault::out_of_range, std::size_t{3}));
    CHECK(fault({1, 1, 5}, 3) == std::pair(Fault::repeated, std::size_t{1}));  // before the 5
    CHECK(fault({1, 0}, 3) == std::pair(Fault::length, std::size_t{2}));
    CHECK(fault({0, 1, 2, 0}, 3) == std::pair(Fault::repeated, std::size_t{0}));
    CHECK(attn::reverse_permutation(3) == std::vector<std::size_t>{2, 1, 0});
}

TEST_CASE("check_permutation: the message names the rows and the indices a permutation has") {
    const auto message = [](std::vector<std::size_t> p, std::size_t n) {
        try {
            attn::check_permutation(p, n, "sentence 2");
        } catch (const attn::PermutationError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(message({0, 1, 7}, 3) == "index 7 is out of range for sentence 2 (3 rows: 0..2)");
    CHECK(message({1, 1}, 3) == "index 1 is repeated; a permutation of 0..2 names each index once");
    CHECK(message({1, 0}, 3) == "2 indices for sentence 2 (3 rows); give a permutation of 0..2");
    CHECK(message({1}, 1) == "index 1 is out of range for sentence 2 (1 rows: 0..0)");
    CHECK(message({0}, 0) == "index 0 is out of range for sentence 2 (0 rows: no index)");
}
