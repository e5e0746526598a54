// The divergences of attn compare against closed forms: JS of two one-hot rows is log 2, of a
// row against itself 0, of (1/2, 1/2) against (1, 0) worked out below, of nearby rows its
// second-order term; KL of two-point distributions; numpy's argmax ties; the reductions.
#include "attn/weight_divergence.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

using attn::HeadDivergence;
using attn::PooledDivergence;

TEST_CASE("js_divergence: closed forms") {
    const double a[] = {1, 0, 0}, b[] = {0, 1, 0};
    CHECK(attn::js_divergence(a, b, 3) == doctest::Approx(std::log(2.0)).epsilon(1e-15));
    CHECK(attn::js_divergence(a, a, 3) == 0.0);
    // p = (1/2, 1/2), q = (1, 0): m = (3/4, 1/4);
    // KL(p||m) = 1/2 log((1/2)/(3/4)) + 1/2 log((1/2)/(1/4)) = 1/2 log(2/3) + 1/2 log 2
    // KL(q||m) = log(1/(3/4)) = log(4/3)
    const double p[] = {0.5, 0.5}, q[] = {1.0, 0.0};
    const double want =
        0.5 * (0.5 * std::log(2.0 / 3.0) + 0.5 * std::log(2.0)) + 0.5 * std::log(4.0 / 3.0);
    CHECK(attn::js_divergence(p, q, 2) == doctest::Approx(want).epsilon(1e-15));
    CHECK(attn::js_divergence(q, p, 2) == doctest::Approx(want).epsilon(1e-15));  // symmetric
    // small differences: JS ~ sum (p - q)^2 / (8 m)
    const double r[] = {0.25, 0.75}, s[] = {0.25 + 1e-4, 0.75 - 1e-4};
    const double second = 1e-8 / 8 * (1 / 0.25 + 1 / 0.75);
    CHECK(attn::js_divergence(r, s, 2) == doctest::Approx(second).epsilon(1e-3));
}

TEST_CASE("kl_divergence: closed form, infinity where B has no mass") {
    const double p[] = {0.5, 0.5}, q[] = {0.25, 0.75};
    CHECK(attn::kl_divergence(p, q, 2) ==
          doctest::Approx(0.5 * std::log(2.0) + 0.5 * std::log(2.0 / 3.0)).epsilon(1e-15));
    const double one[] = {1.0, 0.0};
    CHECK(attn::kl_divergence(one, p, 2) == doctest::Approx(std::log(2.0)).epsilon(1e-15));
    CHECK(std::isinf(attn::kl_divergence(p, one, 2)));
    const attn::NextDivergence d = attn::next_divergence({0.5, 0.5}, {0.25, 0.75});
    CHECK(d.kl == doctest::Approx(attn::kl_divergence(p, q, 2)));
    CHECK(!d.same_top1);  // argmax 0 (the tie's smaller index) against 1
    CHECK(attn::next_divergence({0.5, 0.5}, {0.6, 0.4}).same_top1);
}

TEST_CASE("argmax: the smallest index of the largest value, as numpy's") {
    const double v[] = {0.1, 0.4, 0.4, 0.1};
    CHECK(attn::argmax(v, 4) == 1);
    const double w[] = {0.0, 0.0, 0.0};
    CHECK(attn::argmax(w, 3) == 0);
}

TEST_CASE("HeadDivergence: mean JS and top-1 over queries, the largest difference") {
    // causal rows of 3 keys (stride 4: a padded block), A and B
    const std::vector<double> a{1.0, 0.0, 0.0, 9, 0.5, 0.5, 0.0, 9, 0.2, 0.3, 0.5, 9};
    const std::vector<double> b{1.0, 0.0, 0.0, 7, 0.4, 0.6, 0.0, 7, 0.2, 0.3, 0.5, 7};
    HeadDivergence d;
    d.add_rows(a.data(), b.data(), 1, 3, 4);  // a block of one row, then of two
    d.add_rows(a.data() + 4, b.data() + 4, 2, 3, 4);
    CHECK(d.queries() == 3);
    const double p[] = {0.5, 0.5}, q[] = {0.4, 0.6};
    CHECK(d.js() == doctest::Approx(attn::js_divergence(p, q, 2) / 3).epsilon(1e-15));
    CHECK(d.top1() == doctest::Approx(2.0 / 3.0));  // row 1: argmax 0 against 1
    CHECK(d.max_abs() == doctest::Approx(0.1).epsilon(1e-15));
    CHECK(std::isnan(HeadDivergence{}.js()));

    PooledDivergence pooled;
    pooled.add(d);
    HeadDivergence same;
    same.add_rows(a.data(), a.data(), 3, 3, 4);
    pooled.add(same);
    CHECK(pooled.js() == doctest::Approx(d.js() / 2));
    CHECK(pooled.top1() == doctest::Approx((2.0 / 3.0 + 1.0) / 2));
    CHECK(pooled.max_abs == doctest::Approx(0.1));
}

TEST_CASE("relative_max_difference: max |a - b| / max |a|") {
    const double a[] = {2.0, -4.0, 1.0}, b[] = {2.5, -4.0, 0.0};
    CHECK(attn::relative_max_difference(a, b, 3) == doctest::Approx(1.0 / 4.0));
    CHECK(attn::relative_max_difference(a, a, 3) == 0.0);
    const double z[] = {0.0, 0.0};
    CHECK(attn::relative_max_difference(z, z, 2) == 0.0);
    CHECK(std::isinf(attn::relative_max_difference(z, a, 2)));
}
