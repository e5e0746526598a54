// Attention summaries reduced one head at a time against numpy's computation from the full
// layers x heads x n x n weights (tests/data/summaries/make_summaries.py).
#include "attn/model/summaries.hpp"

#include <cmath>
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "attn/attention/weights.hpp"
#include "io/npz.hpp"
#include "runtime/memory_budget.hpp"
#include "support/reference_data.hpp"
#include "support/throws.hpp"

namespace {

using attn::model::AttentionSummaries;
using attn::model::SummaryChoice;

const std::map<std::string, attn::io::NpyArray>& reference() {
    static const auto arrays = attn::io::read_npz(attn::test::data_path("summaries/summaries.npz"));
    return arrays;
}

const attn::io::NpyArray& array(const std::string& name) {
    const auto it = reference().find(name);
    const std::string missing = "summaries.npz has no " + name;
    REQUIRE_MESSAGE(it != reference().end(), missing);
    return it->second;
}

void check_close(std::span<const double> got, const std::vector<double>& want,
                 const std::string& what, double tolerance = 1e-5) {
    REQUIRE_MESSAGE(got.size() == want.size(),
                    fmt::format("{}: {} values, want {}", what, got.size(), want.size()));
    double worst = 0;
    std::size_t at = 0;
    for (std::size_t k = 0; k < got.size(); ++k)
        if (const double d = std::abs(got[k] - want[k]); !(d <= worst)) worst = d, at = k;
    CHECK_MESSAGE(worst <= tolerance, fmt::format("{}: |got - want| = {} at {} (got {}, want {})",
                                                  what, worst, at, got[at], want[at]));
}

/// Feeds the case's weights head by head (as T) and checks every summary.
template <class T>
void check_case(const std::string& name) {
    const auto& weights = array(name + "_weights");
    const std::size_t layers = weights.shape[0], heads = weights.shape[1], n = weights.shape[2];
    AttentionSummaries s(n, SummaryChoice{true, true, true, true});
    std::vector<T> block(n * n);
    for (std::size_t l = 0; l < layers; ++l) {
        for (std::size_t h = 0; h < heads; ++h) {
            const double* w = weights.values.data() + (l * heads + h) * n * n;
            for (std::size_t k = 0; k < n * n; ++k) block[k] = static_cast<T>(w[k]);
            s.add_head(l, h, std::span<const T>(block));
        }
        s.end_layer();
    }
    CHECK(s.layers() == layers);
    std::vector<double> stats;
    for (std::size_t r = 0; r < s.head_stats().size(); ++r) {
        const auto& row = s.head_stats()[r];
        CHECK(row.layer == r / heads);
        CHECK(row.head == r % heads);
        stats.insert(stats.end(), {row.entropy, row.distance, row.first, row.previous, row.self});
    }
    check_close(stats, array(name + "_head_stats").values, name + " head_stats");
    check_close(s.offsets(), array(name + "_offsets").values, name + " offsets");
    check_close(s.mean_weights(), array(name + "_mean_weights").values, name + " mean_weights");
    check_close(s.rollout(), array(name + "_rollout").values, name + " rollout");
    for (std::size_t i = 0; i < n; ++i) {  // rollout rows are distributions
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) sum += s.rollout()[i * n + j];
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
    }
}

}  // namespace

TEST_CASE("summaries equal numpy's from the full weights: causal, bidirectional, n = 1") {
    for (const std::string name : {"causal", "full", "n1"}) {
        INFO(name);
        check_case<double>(name);
        check_case<float>(name);
    }
}

TEST_CASE("summaries of one-hot heads are exact") {
    const auto& weights = array("causal_weights");  // layer 1 head 2: the previous token
    const std::size_t heads = weights.shape[1], n = weights.shape[2];
    const std::span<const double> prev(weights.values.data() + (1 * heads + 2) * n * n, n * n);
    const auto s = attn::model::head_stats(1, 2, prev, n);
    CHECK(s.entropy == 0.0);
    CHECK(s.previous == 1.0);
    CHECK(s.first == 1.0 / static_cast<double>(n) + 1.0 / static_cast<double>(n));  // queries 0, 1
    CHECK(s.self == 1.0 / static_cast<double>(n));                                  // query 0
    CHECK(s.distance == static_cast<double>(n - 1) / static_cast<double>(n));
    std::vector<double> profile(2 * n - 1);
    attn::model::offset_profile(prev, n, profile);
    CHECK(profile[n - 2] == 1.0);  // offset -1: every query that has it
    CHECK(profile[n - 1] == 1.0 / static_cast<double>(n));
    for (std::size_t k = 0; k < profile.size(); ++k)
        if (k != n - 2 && k != n - 1) CHECK(profile[k] == 0.0);
}

TEST_CASE("head_stats of a head whose rows hold NaN: the entropy is NaN, as numpy's") {
    // numpy: -(w * log(w)).sum(-1).mean() with 0 log 0 = 0; a NaN row stays NaN
    const std::vector<float> w{1, 0, std::nanf(""), std::nanf("")};  // (2, 2): row 1 is NaN
    const auto s = attn::model::head_stats(0, 0, std::span<const float>(w), 2);
    CHECK(std::isnan(s.entropy));
    CHECK(std::isnan(s.distance));
    const std::vector<double> clean{1, 0, 0.5, 0.5};
    CHECK(attn::model::head_stats(0, 0, std::span<const double>(clean), 2).entropy ==
          doctest::Approx(std::log(2.0) / 2));
}

TEST_CASE("summaries with nothing chosen keep nothing; no layer leaves the identity rollout") {
    AttentionSummaries none(3, SummaryChoice{});
    const std::vector<double> uniform(9, 1.0 / 3);
    none.add_head(0, 0, std::span<const double>(uniform));
    none.end_layer();
    CHECK(none.head_stats().empty());
    CHECK(none.offsets().empty());
    CHECK(none.mean_weights().empty());
    CHECK(none.rollout().empty());
    const AttentionSummaries fresh(2, SummaryChoice{false, false, false, true});
    CHECK(fresh.rollout() == std::vector<double>{1, 0, 0, 1});
}

TEST_CASE("summaries refuse misuse: n = 0, wrong block size, layers out of order") {
    using attn::test::invalid_argument_of;
    CHECK(invalid_argument_of([] { AttentionSummaries(0, SummaryChoice{}); }) ==
          "summaries: n = 0 tokens (at least 1)");
    AttentionSummaries s(2, SummaryChoice{true, true, true, true});
    const std::vector<double> small(3, 0.25), block{1, 0, 0.5, 0.5};
    CHECK_THROWS_AS(s.add_head(0, 0, std::span<const double>(small)), std::invalid_argument);
    CHECK_THROWS_AS(s.end_layer(), std::invalid_argument);
    s.add_head(4, 0, std::span<const double>(block));
    CHECK(invalid_argument_of([&] { s.add_head(5, 0, std::span<const double>(block)); }) ==
          "summaries: head of layer 5 while layer 4 is open (end_layer first)");
    s.end_layer();
    CHECK_THROWS_AS(s.add_head(4, 1, std::span<const double>(block)), std::invalid_argument);
    CHECK(s.layer_numbers() == std::vector<std::size_t>{4});
    std::vector<double> out(2);
    CHECK_THROWS_AS(attn::model::offset_profile(std::span<const double>(block), 2, out),
                    std::invalid_argument);
}

TEST_CASE("add_layer: a layer's heads read by rows on either path, as its weights added in turn") {
    const std::size_t n = 5, d = 4, H = 2;
    xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({n, d});  // (n, d) sin(i d + j)
    for (std::size_t k = 0; k < x.size(); ++k) x.data()[k] = std::sin(double(k));
    attn::AttentionWeights<double> w;
    for (std::size_t h = 0; h < H; ++h) {
        xt::xtensor<double, 2> m = xt::xtensor<double, 2>::from_shape({d, 3});  // (d, 3)
        for (std::size_t k = 0; k < m.size(); ++k) m.data()[k] = std::cos(double(k + 7 * h));
        w.query.push_back(m), w.key.push_back(m * 0.5), w.value.push_back(m * m);
        w.b_query.emplace_back(), w.b_key.emplace_back(), w.b_value.emplace_back();
    }
    attn::LayerInput<double> in;
    in.x = {x.data(), n, d, d};
    attn::LayerOptions o;
    o.mask.causal = true;
    const attn::positions::PositionScheme<double> none;
    const auto direct = attn::forward(in, w.views(), none, o);
    o.path = attn::AttentionPath::tiled;
    const auto tiled = attn::forward(in, w.views(), none, o);

    const SummaryChoice all{true, true, true, true};
    AttentionSummaries want(n, all), from_direct(n, all), from_tiled(n, all);
    for (std::size_t h = 0; h < H; ++h)
        want.add_head(3, h, std::span<const double>(direct.weights[h].data(), n * n));
    want.end_layer();
    attn::model::add_layer(from_direct, 3, direct);
    attn::model::add_layer(from_tiled, 3, tiled);
    REQUIRE(from_direct.head_stats().size() == H);
    for (std::size_t h = 0; h < H; ++h) {
        const auto& got = from_direct.head_stats()[h];
        CHECK(got.layer == 3);
        CHECK(got.head == h);
        CHECK(got.values() == want.head_stats()[h].values());
        CHECK(got.values()[1] == got.distance);  // in kNames' order
        const auto exact = got.values();
        check_close(from_tiled.head_stats()[h].values(),
                    std::vector<double>(exact.begin(), exact.end()), "tiled head_stats", 1e-12);
    }
    CHECK(std::string(attn::model::HeadStats::kNames[1]) == "distance");
    CHECK(from_direct.rollout() == want.rollout());
    check_close(from_tiled.mean_weights(), want.mean_weights(), "tiled mean_weights", 1e-12);
    check_close(from_tiled.offsets(), want.offsets(), "tiled offsets", 1e-12);

    // summarise_each: a batch through the layer, one AttentionSummaries each, as layer 0
    std::vector<attn::LayerResult<double>> batch;
    batch.push_back(attn::forward(in, w.views(), none, o));  // tiled
    o.path = attn::AttentionPath::direct;
    batch.push_back(attn::forward(in, w.views(), none, o));
    const std::vector<AttentionSummaries> each = attn::model::summarise_each(batch, n, all);
    REQUIRE(each.size() == 2);
    CHECK(each[1].layer_numbers() == std::vector<std::size_t>{0});
    CHECK(each[1].head_stats().size() == H);
    CHECK(each[1].head_stats()[1].layer == 0);
    CHECK(each[1].head_stats()[1].values() == want.head_stats()[1].values());
    CHECK(each[1].rollout() == want.rollout());
    CHECK(each[1].offsets() == want.offsets());
    check_close(each[0].mean_weights(), want.mean_weights(), "tiled mean_weights", 1e-12);
}

TEST_CASE("summaries_bytes: what an AttentionSummaries holds, counted before it is made") {
    const std::size_t n = 7, H = 3, L = 2;
    const std::uint64_t square = n * n * 8;
    CHECK(attn::model::summaries_bytes(n, H, L, SummaryChoice{}) == 0);
    CHECK(attn::model::summaries_bytes(n, H, L, SummaryChoice{true, false, false, false}) ==
          L * H * sizeof(attn::model::HeadStats));
    CHECK(attn::model::summaries_bytes(n, H, L, SummaryChoice{false, true, false, false}) ==
          L * H * 2 * n * 8);
    // the head sum and L means; with the rollout, R and the four n x n of its product
    CHECK(attn::model::summaries_bytes(n, H, L, SummaryChoice{false, false, true, false}) ==
          square + L * square);
    CHECK(attn::model::summaries_bytes(n, H, L, SummaryChoice{false, false, false, true}) ==
          square + 5 * square);
    // at least what the summaries keep once filled
    AttentionSummaries s(n, SummaryChoice{true, true, true, true});
    std::vector<double> w(n * n, 1.0 / n);
    for (std::size_t l = 0; l < L; ++l) {
        for (std::size_t h = 0; h < H; ++h) s.add_head(l, h, std::span<const double>(w));
        s.end_layer();
    }
    const std::uint64_t kept =
        8 * (s.offsets().size() + s.mean_weights().size() + s.rollout().size()) +
        s.head_stats().size() * sizeof(attn::model::HeadStats);
    CHECK(attn::model::summaries_bytes(n, H, L, SummaryChoice{true, true, true, true}) >= kept);
    CHECK_THROWS_AS(attn::model::summaries_bytes(std::size_t{1} << 33, 1, 1,
                                                 SummaryChoice{false, false, false, true}),
                    attn::runtime::SizeOverflow);
}

TEST_CASE("run_summaries_bytes: each batch element's summaries and one head's weights") {
    const SummaryChoice all{true, true, true, true};
    const std::uint64_t one = attn::model::summaries_bytes(7, 3, 1, all);
    const std::uint64_t four = attn::model::summaries_bytes(4, 3, 1, all);
    CHECK(attn::model::run_summaries_bytes({}, 3, 4) == 0);
    // n = 7 without a batch axis (one element), n = 4 in a batch of 2; float32 weights
    CHECK(attn::model::run_summaries_bytes({{7, 0}, {4, 2}}, 3, 4) ==
          one + 7 * 7 * 4 + 2 * four + 4 * 4 * 4);
}
