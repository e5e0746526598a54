// Pooled summaries equal the summaries of every (prompt, query) pair taken as one set: two
// prompts of 2 and 3 tokens whose statistics are worked out by hand from their weight rows.
#include "attn/pooled_summaries.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using attn::PooledSummaries;
using attn::model::AttentionSummaries;
using attn::model::SummaryChoice;

namespace {

AttentionSummaries summaries_of(const std::vector<double>& w, std::size_t n) {
    AttentionSummaries s(n, SummaryChoice{true, true, false, false});
    s.add_head(0, 0, w);
    s.end_layer();
    return s;
}

double row_entropy(std::initializer_list<double> row) {
    double e = 0;
    for (const double v : row)
        if (v > 0) e -= v * std::log(v);
    return e;
}

}  // namespace

TEST_CASE("pooled summaries: means over every (prompt, query) pair") {
    const std::vector<double> a{1, 0, 0.25, 0.75};                     // n = 2
    const std::vector<double> b{1, 0, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5};  // n = 3
    PooledSummaries pool;
    pool.add(summaries_of(a, 2));
    pool.add(summaries_of(b, 3));
    CHECK(pool.prompts() == 2);
    CHECK(pool.longest() == 3);
    const auto stats = pool.head_stats();
    REQUIRE(stats.size() == 1);
    // five queries: rows (1 0), (.25 .75), (1 0 0), (.5 .5 0), (.2 .3 .5)
    CHECK(stats[0].first == doctest::Approx((1 + 0.25 + 1 + 0.5 + 0.2) / 5).epsilon(1e-14));
    CHECK(stats[0].self == doctest::Approx((1 + 0.75 + 1 + 0.5 + 0.5) / 5).epsilon(1e-14));
    CHECK(stats[0].previous == doctest::Approx((0.25 + 0.5 + 0.3) / 3).epsilon(1e-14));
    CHECK(stats[0].distance == doctest::Approx((0.25 + 0.5 + 0.2 * 2 + 0.3) / 5).epsilon(1e-14));
    const double entropy =
        (row_entropy({0.25, 0.75}) + row_entropy({0.5, 0.5}) + row_entropy({0.2, 0.3, 0.5})) / 5;
    CHECK(stats[0].entropy == doctest::Approx(entropy).epsilon(1e-14));
    // offsets -2 .. 2: (.2) / 1, (.25 + .5 + .3) / 3, self, then the zeros above the diagonal
    const auto off = pool.offsets();
    REQUIRE(off.size() == 5);
    CHECK(off[0] == doctest::Approx(0.2).epsilon(1e-14));
    CHECK(off[1] == doctest::Approx(1.05 / 3).epsilon(1e-14));
    CHECK(off[2] == doctest::Approx(3.75 / 5).epsilon(1e-14));
    CHECK(off[3] == 0.0);
    CHECK(off[4] == 0.0);
}

TEST_CASE("pooled summaries: a longer prompt first, and one-token prompts have no previous") {
    PooledSummaries pool;
    pool.add(summaries_of({1, 0, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5}, 3));
    pool.add(summaries_of({1}, 1));
    const auto off = pool.offsets();
    REQUIRE(off.size() == 5);
    CHECK(off[2] == doctest::Approx((1 + 0.5 + 0.5 + 1) / 4).epsilon(1e-14));
    CHECK(off[1] == doctest::Approx(0.8 / 2).epsilon(1e-14));
    CHECK(pool.head_stats()[0].previous == doctest::Approx(0.8 / 2).epsilon(1e-14));

    PooledSummaries single;
    single.add(summaries_of({1}, 1));
    CHECK(single.head_stats()[0].previous == 0.0);
    CHECK(single.offsets() == std::vector<double>{1.0});
}
