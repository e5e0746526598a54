// The divergences of attn compare against closed forms: JS of two one-hot rows is log 2, of a
// row against itself 0, of (1/2, 1/2) against (1, 0) worked out below, of nearby rows its
// second-order term; KL of two-point distributions; numpy's argmax ties; the reductions. NaN
// rows (a forward that met a NaN) give what numpy gives from the same rows: nan for JS, KL,
// max_abs and hidden, argmax at the first NaN.
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

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("js_divergence and kl_divergence of rows holding a NaN are NaN") {
    const double p[] = {0.5, 0.5, 0.0}, nan_row[] = {kNaN, kNaN, kNaN};
    CHECK(std::isnan(attn::js_divergence(nan_row, p, 3)));
    CHECK(std::isnan(attn::js_divergence(p, nan_row, 3)));
    CHECK(std::isnan(attn::js_divergence(nan_row, nan_row, 3)));  // not 0: never a number
    const double one_nan[] = {0.0, 0.0, kNaN};  // a NaN where p_j = 0: its m_j is NaN
    CHECK(std::isnan(attn::js_divergence(p, one_nan, 3)));
    CHECK(std::isnan(attn::kl_divergence(nan_row, p, 3)));
    CHECK(std::isnan(attn::kl_divergence(p, one_nan, 3)));  // q's NaN where p_j = 0 still counts
    // +inf (q_0 = 0 < p_0) then a NaN: inf + nan = nan, in either order
    const double q[] = {0.0, kNaN, 1.0}, r[] = {kNaN, 0.0, 1.0};
    CHECK(std::isnan(attn::kl_divergence(p, q, 3)));
    CHECK(std::isnan(attn::kl_divergence(p, r, 3)));
}

TEST_CASE("argmax of a row holding a NaN: its first NaN, as numpy's") {
    const double v[] = {0.1, kNaN, 0.9, kNaN};
    CHECK(attn::argmax(v, 4) == 1);
    const double w[] = {kNaN, 1.0};
    CHECK(attn::argmax(w, 2) == 0);
    const double x[] = {0.9, 0.1, kNaN};  // after the largest
    CHECK(attn::argmax(x, 3) == 2);
    CHECK(std::isnan(attn::max_nan(1.0, kNaN)));
    CHECK(std::isnan(attn::max_nan(kNaN, 1.0)));
    CHECK(attn::max_nan(1.0, 2.0) == 2.0);
}

TEST_CASE("HeadDivergence and PooledDivergence: NaN rows give NaN js and max_abs") {
    // rows of 3 keys: A's second block all NaN (its head met a NaN), B's finite
    const std::vector<double> a{1.0, 0.0, 0.0, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
    const std::vector<double> b{1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.2, 0.8, 0.0};
    HeadDivergence d;
    d.add_rows(a.data(), b.data(), 1, 3, 3);  // a finite row, then two NaN rows,
    d.add_rows(a.data() + 3, b.data() + 3, 2, 3, 3);
    d.add_rows(a.data(), b.data(), 1, 3, 3);  // then a finite one: max_abs stays NaN
    CHECK(d.queries() == 4);
    CHECK(std::isnan(d.js()));
    CHECK(std::isnan(d.max_abs()));
    // argmax: rows 0 and 3 agree (0, 0); NaN row 1 (argmax 0) against B's 0 agrees, row 2
    // against B's 1 does not
    CHECK(d.top1() == doctest::Approx(3.0 / 4.0));

    HeadDivergence both;  // A and B both NaN: top-1 agrees (index 0), js and max_abs NaN
    both.add_rows(a.data() + 3, a.data() + 3, 2, 3, 3);
    CHECK(both.top1() == 1.0);
    CHECK(std::isnan(both.js()));
    CHECK(std::isnan(both.max_abs()));

    HeadDivergence clean;
    clean.add_rows(b.data(), b.data(), 3, 3, 3);
    for (const bool nan_first : {true, false}) {
        PooledDivergence pooled;
        pooled.add(nan_first ? d : clean);
        pooled.add(nan_first ? clean : d);
        CHECK(std::isnan(pooled.js()));
        CHECK(std::isnan(pooled.max_abs));
        CHECK(pooled.top1() == doctest::Approx((3.0 / 4.0 + 1.0) / 2));
    }
}

TEST_CASE("relative_max_difference and next_divergence with a NaN") {
    const double a[] = {2.0, -4.0, 1.0}, b[] = {2.0, kNaN, 1.0}, nan_a[] = {kNaN, 1.0, 1.0};
    CHECK(std::isnan(attn::relative_max_difference(a, b, 3)));
    CHECK(std::isnan(attn::relative_max_difference(b, a, 3)));
    CHECK(std::isnan(attn::relative_max_difference(b, b, 3)));  // not 0: NaN - NaN is NaN
    CHECK(std::isnan(attn::relative_max_difference(nan_a, a, 3)));
    const double inf_a[] = {kInf, 1.0}, fin[] = {1.0, 1.0};
    CHECK(std::isnan(attn::relative_max_difference(inf_a, fin, 2)));  // inf / inf
    CHECK(std::isinf(attn::relative_max_difference(fin, inf_a, 2)));  // inf / 1

    // A's distribution all NaN (its logits met one): kl NaN; top-1 agrees only with a B whose
    // largest probability is at id 0
    const std::vector<double> nan_p{kNaN, kNaN};
    const attn::NextDivergence d = attn::next_divergence(nan_p, {0.7, 0.3});
    CHECK(std::isnan(d.kl));
    CHECK(d.same_top1);
    CHECK(!attn::next_divergence(nan_p, {0.3, 0.7}).same_top1);
    CHECK(std::isnan(attn::next_divergence({0.3, 0.7}, nan_p).kl));
}
