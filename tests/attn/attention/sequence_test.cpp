// attn::Sequence: a sentence's vocabulary and ids, its permutation X[p] and the masks of
// each batch element.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <xtensor/xmath.hpp>
#include <xtensor/xsort.hpp>

#include "attn/attention/sequence.hpp"
#include "support/throws.hpp"

TEST_CASE("token_sequence: the sorted vocabulary and each token's id in it") {
    const attn::Sequence s = attn::token_sequence({"the", "cat", "saw", "the", "dog"});
    CHECK(s.vocab == std::vector<std::string>{"cat", "dog", "saw", "the"});
    CHECK(s.ids == std::vector<std::size_t>{3, 0, 2, 3, 1});
    CHECK(s.tokens.size() == 5);
    CHECK(s.x.empty());
    CHECK_THROWS_AS(attn::token_sequence({}), std::invalid_argument);
}

TEST_CASE("permuted: tokens, ids and the rows of every batch element as X[p]") {
    attn::Sequence s = attn::token_sequence({"a", "b", "c"});
    s.batch = 2;
    s.x = {{{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, {{-1.0, 0.0}, {0.0, -1.0}, {7.0, 8.0}}};
    const std::vector<std::size_t> p = {2, 0, 1};
    const attn::Sequence t = attn::permuted(s, p);
    CHECK(t.tokens == std::vector<std::string>{"c", "a", "b"});
    CHECK(t.ids == std::vector<std::size_t>{2, 0, 1});
    CHECK(t.vocab == s.vocab);
    CHECK(t.x[0] == xt::xtensor<double, 2>{{5.0, 6.0}, {1.0, 2.0}, {3.0, 4.0}});
    CHECK(t.x[1] == xt::xtensor<double, 2>{{7.0, 8.0}, {-1.0, 0.0}, {0.0, -1.0}});
    const std::vector<std::size_t> repeated = {0, 0, 1};
    CHECK_THROWS_AS(attn::permuted(s, repeated), std::invalid_argument);
    CHECK_THROWS_AS(attn::permuted(s, std::vector<std::size_t>{1, 0}), std::invalid_argument);
}

TEST_CASE("sequence_masks: one mask per batch element, valid lengths for all or each") {
    attn::Sequence one, two;
    one.x = {xt::xtensor<double, 2>::from_shape({4, 2})};
    two.batch = 2;
    two.x = {xt::xtensor<double, 2>::from_shape({3, 2}),
             xt::xtensor<double, 2>::from_shape({3, 2})};
    attn::MaskOptions base;
    base.causal = true;
    base.fill = -1e6;
    const std::vector<std::size_t> each = {4, 1, 2}, all = {2}, wrong = {1, 2};
    const auto masks = attn::sequence_masks({one, two}, base, each);
    REQUIRE(masks.size() == 2);
    REQUIRE(masks[1].size() == 2);
    CHECK(*masks[0][0].valid_len == 4);
    CHECK(*masks[1][0].valid_len == 1);
    CHECK(*masks[1][1].valid_len == 2);
    CHECK(masks[1][1].causal);
    CHECK(*masks[1][1].fill == -1e6);
    CHECK(*attn::sequence_masks({one, two}, base, all)[1][1].valid_len == 2);
    CHECK(!attn::sequence_masks({one, two}, base, {})[0][0].valid_len);
    CHECK(attn::test::invalid_argument_of([&] {
              attn::sequence_masks({one, two}, base, wrong);
          }) == "2 lengths for 3 sequences; give one for all or one per sequence");
}

namespace {

attn::Sequence batch_of_two() {
    attn::Sequence s;
    s.batch = 2;
    for (int b = 0; b < 2; ++b) {
        xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({5, 4});
        for (std::size_t e = 0; e < x.size(); ++e) x.data()[e] = std::sin(1.0 + e * (b + 2.0));
        s.x.push_back(x);
    }
    return s;
}

}  // namespace

TEST_CASE("attend_sequence: each batch element's layer over X[p], and its equivariance") {
    const attn::Sequence s = batch_of_two();
    attn::LayerWeights<double> w;
    w.identity = true;  // softmax(x x^T / 2) x: (x[p] ...) = (...)[p] with no positions or mask
    const std::vector<std::size_t> p = {4, 2, 0, 1, 3};
    const std::vector<attn::MaskOptions> masks(2);
    attn::LayerOptions o;
    o.scale = 1.0;
    const auto r = attn::attend_sequence<double>(s, p, w, {}, masks, o);
    REQUIRE(r.results.size() == 2);
    REQUIRE(r.equivariance.size() == 2);
    CHECK(r.scale == 1.0);
    for (std::size_t b = 0; b < 2; ++b) {
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t k = 0; k < 4; ++k) CHECK(r.x[b](i, k) == s.x[b](p[i], k));
        CHECK(xt::amax(xt::abs(r.equivariance[b]))() < 1e-14);
        CHECK(xt::amax(xt::abs(r.results[b].output))() > 0.1);
    }
    // a causal mask is positional: X[p] no longer gives the outputs permuted
    std::vector<attn::MaskOptions> causal(2);
    causal[1].causal = true;
    const auto c = attn::attend_sequence<double>(s, p, w, {}, causal, o);
    CHECK(xt::amax(xt::abs(c.equivariance[0]))() < 1e-14);
    CHECK(xt::amax(xt::abs(c.equivariance[1]))() > 1e-3);
    CHECK(attn::attend_sequence<double>(s, {}, w, {}, masks, o).equivariance.empty());
    // the contexts' largest magnitude and n + d_in + d_out
    const attn::SumBound bound = attn::equivariance_bound(r);
    CHECK(bound.terms == 5 + 4 + 4);
    CHECK(bound.magnitude == std::max(double(xt::amax(xt::abs(r.results[0].output))()),
                                      double(xt::amax(xt::abs(r.results[1].output))())));
    CHECK(bound.magnitude > 0.1);
    CHECK_THROWS_AS(attn::attend_sequence<double>(s, p, w, {}, {{}}, o), std::invalid_argument);
}

TEST_CASE("rows_sequence: (n, d) rows, or a batch (b, n, d) split into its elements") {
    const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const std::vector<std::size_t> rows = {6, 2}, batch = {2, 3, 2}, zero = {0, 6, 2}, rank1 = {12},
                                   short_shape = {5, 2};
    const attn::Sequence r = attn::rows_sequence(v, rows);
    CHECK(r.batch == 0);
    REQUIRE(r.x.size() == 1);
    CHECK(r.x[0](5, 1) == 12);
    const attn::Sequence b = attn::rows_sequence(v, batch);
    CHECK(b.batch == 2);
    REQUIRE(b.x.size() == 2);
    CHECK(b.x[1] == xt::xtensor<double, 2>{{7, 8}, {9, 10}, {11, 12}});
    CHECK(b.n() == 3);
    CHECK(b.d_in() == 2);
    using attn::test::invalid_argument_of;
    CHECK(invalid_argument_of([&] { attn::rows_sequence(v, zero, "X.npy"); }) ==
          "X.npy: shape (0, 6, 2); expected rows (n, d) or a batch (b, n, d), none of them 0");
    CHECK(invalid_argument_of([&] { attn::rows_sequence(v, rank1); }) ==
          "rows: shape (12,); expected rows (n, d) or a batch (b, n, d), none of them 0");
    CHECK(invalid_argument_of([&] { attn::rows_sequence(v, short_shape); }) ==
          "rows: 12 values for shape (5, 2)");
    // one value that is not finite, in the second batch element: named by its (b, i, c)
    std::vector<double> bad = v;
    bad[9] = std::numeric_limits<double>::quiet_NaN();
    CHECK(invalid_argument_of([&] { attn::rows_sequence(bad, batch, "X.npy"); }) ==
          "X.npy: element (1, 1, 1) is nan; attention needs finite numbers");
    bad[9] = 10, bad[0] = -std::numeric_limits<double>::infinity();
    CHECK(invalid_argument_of([&] { attn::rows_sequence(bad, rows, "X.npy"); }) ==
          "X.npy: element (0, 0) is -inf; attention needs finite numbers");
    // finite, but above the largest value of the dtype the layer computes in: the first of them
    bad[0] = 1, bad[7] = -70000, bad[9] = 1e39;
    CHECK(invalid_argument_of([&] {
              attn::rows_sequence(bad, batch, "X.npy", 65504, "float16");
          }) == "X.npy: element (1, 0, 1) is -70000, above float16's largest value 65504");
    CHECK(attn::rows_sequence(bad, batch, "X.npy", std::numeric_limits<double>::max(), "float64")
              .x[1](1, 1) == 1e39);
}
