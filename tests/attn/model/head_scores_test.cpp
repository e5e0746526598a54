// Head scores against closed forms on hand-made weights, and against numpy's computation of
// TransformerLens's measures and attn's rows and statistics on prompts with repeated tokens
// (tests/data/heads/make_references.py).
#include "attn/model/head_scores.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "io/npz.hpp"
#include "support/reference_data.hpp"
#include "support/throws.hpp"

namespace {

using attn::model::Exclusions;
using attn::model::HeadScores;
using attn::model::HeadSums;
using attn::model::Measure;
using attn::model::PromptHeadScorer;

/// Adds one prompt's weights w (n x n) in blocks of `block` rows.
void add_prompt(HeadSums& sums, const std::vector<std::int64_t>& ids, const std::vector<double>& w,
                bool causal, Exclusions ex, std::size_t block = 5) {
    const std::size_t n = ids.size();
    PromptHeadScorer s(ids, causal, ex);
    for (std::size_t r = 0; r < n; r += block)
        s.add_rows(r, std::min(block, n - r), w.data() + r * n, n);
    s.finish(sums);
}

/// A causal head putting all of query i's weight on key key(i) (<= i).
template <class F>
std::vector<double> one_hot(std::size_t n, F key) {
    std::vector<double> w(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) w[i * n + key(i)] = 1.0;
    return w;
}

std::vector<std::int64_t> iota_ids(std::size_t n) {
    std::vector<std::int64_t> t(n);
    for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<std::int64_t>(i);
    return t;
}

}  // namespace

TEST_CASE("head scores: a previous-token head, closed forms under each measure") {
    const std::size_t n = 10;
    const auto w = one_hot(n, [](std::size_t i) { return i == 0 ? 0 : i - 1; });
    HeadSums sums;
    add_prompt(sums, iota_ids(n), w, true, {});
    const HeadScores rows = attn::model::head_scores(sums, Measure::rows);
    CHECK(rows.pattern[0] == 1.0);
    CHECK(std::isnan(rows.pattern[1]));  // distinct ids: no duplicate, no induction entry
    CHECK(std::isnan(rows.pattern[2]));
    CHECK(rows.type == "previous");
    CHECK(rows.offset == -1);
    CHECK(rows.positional == 1.0);
    CHECK(rows.entropy == 0.0);
    CHECK(rows.sink == doctest::Approx(1.0 / 9));  // query 1's previous key is key 0
    // mul: sum A D / sum A = (n - 1) / n; abs: 1 - sum |A - D| / n = 1 - 1 / n (query 0's row)
    CHECK(attn::model::head_scores(sums, Measure::mul).pattern[0] == doctest::Approx(0.9));
    CHECK(attn::model::head_scores(sums, Measure::abs).pattern[0] == doctest::Approx(0.9));
    // --exclude-bos removes query 1's only entry: 8 queries left, each 1
    HeadSums bos;
    add_prompt(bos, iota_ids(n), w, true, {true, false});
    CHECK(attn::model::head_scores(bos, Measure::rows).pattern[0] == 1.0);
    CHECK(bos.rows_queries[0] == 8);
    CHECK(bos.plain_queries[0] == 9);
}

TEST_CASE("head scores: uniform causal weights give ln(i + 1) and the sink 1 / (i + 1)") {
    const std::size_t n = 8;
    std::vector<double> w(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) w[i * n + j] = 1.0 / static_cast<double>(i + 1);
    HeadSums sums;
    add_prompt(sums, iota_ids(n), w, true, {}, 3);
    const HeadScores h = attn::model::head_scores(sums, Measure::rows);
    double sink = 0, entropy = 0;
    for (std::size_t i = 1; i < n; ++i) {
        sink += 1.0 / static_cast<double>(i + 1);
        entropy += std::log(static_cast<double>(i + 1));
    }
    CHECK(h.sink == doctest::Approx(sink / 7).epsilon(1e-14));
    CHECK(h.entropy == doctest::Approx(entropy / 7).epsilon(1e-14));
    // every argmax is key 0 (the smallest index of a tie): offsets -1 .. -7 once each; the
    // tie goes to the smallest |offset|
    CHECK(h.offset == -1);
    CHECK(h.positional == doctest::Approx(1.0 / 7));
    // previous, sink and self are all mean 1 / (i + 1) < 0.5, and positional 1 / 7: no label
    CHECK(h.type.empty());
}

TEST_CASE("head scores: the type label and its ties") {
    const std::size_t n = 6;
    // all weight on key 0: sink 1, previous 1 / 5 -> sink
    HeadSums sink;
    add_prompt(sink, iota_ids(n), one_hot(n, [](std::size_t) { return std::size_t{0}; }), true, {});
    CHECK(attn::model::head_type(sink) == "sink");
    // self: all on the diagonal
    HeadSums self;
    add_prompt(self, iota_ids(n), one_hot(n, [](std::size_t i) { return i; }), true, {});
    CHECK(attn::model::head_type(self) == "self");
    CHECK(attn::model::head_scores(self, Measure::rows).offset == 0);
    // two back: positional (offset -2 on 4 of 5 queries = 0.8 < 0.9: no label; 2 prompts of
    // 12 make 20 of 22)
    const auto two_back = [](std::size_t i) { return i < 2 ? 0 : i - 2; };
    HeadSums pos;
    add_prompt(pos, iota_ids(n), one_hot(n, two_back), true, {});
    CHECK(attn::model::head_type(pos).empty());
    HeadSums longer;
    add_prompt(longer, iota_ids(12), one_hot(12, two_back), true, {});
    add_prompt(longer, iota_ids(12), one_hot(12, two_back), true, {});
    CHECK(attn::model::head_scores(longer, Measure::rows).offset == -2);
    CHECK(attn::model::head_scores(longer, Measure::rows).positional == doctest::Approx(20.0 / 22));
    CHECK(attn::model::head_type(longer) == "positional");
    // equal counts at offsets -2 and +2 (bidirectional): the negative one
    HeadSums tie;
    tie.widen(3);
    tie.argmax[3 - 2] = 4;
    tie.argmax[3 + 2] = 4;
    tie.argmax[3 + 3] = 3;
    tie.queries = 11;
    CHECK(attn::model::head_scores(tie, Measure::rows).offset == -2);
    tie.argmax[3 + 1] = 4;  // +1 ties -2 and +2 with a smaller |offset|
    CHECK(attn::model::head_scores(tie, Measure::rows).offset == 1);
}

TEST_CASE("head scores: a NaN weight is never made a number") {
    // previous-token rows, row 3 holding a NaN at key 1 before its 1 at key 2
    const std::size_t n = 4;
    auto w = one_hot(n, [](std::size_t i) { return i == 0 ? 0 : i - 1; });
    w[3 * n + 1] = std::nan("");
    HeadSums sums;
    add_prompt(sums, iota_ids(n), w, true, {}, 2);
    const HeadScores rows = attn::model::head_scores(sums, Measure::rows);
    CHECK(std::isnan(rows.entropy));               // -sum A ln A over row 3
    CHECK(rows.pattern[0] == 1.0);                 // the previous entries hold no NaN
    CHECK(rows.sink == doctest::Approx(1.0 / 3));  // row 1 on key 0
    // numpy's argmax of row 3 is the NaN's key 1: offsets -1, -1, -2
    CHECK(rows.offset == -1);
    CHECK(rows.positional == doctest::Approx(2.0 / 3));
    CHECK(std::isnan(attn::model::head_scores(sums, Measure::mul).pattern[0]));  // sum A is NaN
    CHECK(std::isnan(attn::model::head_scores(sums, Measure::abs).pattern[0]));  // so is |A - D|
    // every weight NaN (a NaN query): every score NaN, argmax key 0, no type
    HeadSums all;
    add_prompt(all, iota_ids(3), std::vector<double>(9, std::nan("")), true, {});
    const HeadScores h = attn::model::head_scores(all, Measure::rows);
    for (const double v : {h.pattern[0], h.pattern[1], h.pattern[2], h.sink, h.self, h.entropy})
        CHECK(std::isnan(v));
    CHECK(h.offset == -1);  // offsets -1 and -2 once each: the smaller |offset|
    CHECK(h.positional == 0.5);
    CHECK(h.type.empty());
}

TEST_CASE("head scores: row blocks, merges and misuse") {
    const std::vector<std::int64_t> t{5, 1, 2, 1, 2, 5, 1};
    const std::size_t n = t.size();
    std::vector<double> w(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j)
            w[i * n + j] = static_cast<double>(1 + (i * 7 + j * 3) % 5);
    for (std::size_t i = 0; i < n; ++i) {
        double s = 0;
        for (std::size_t j = 0; j <= i; ++j) s += w[i * n + j];
        for (std::size_t j = 0; j <= i; ++j) w[i * n + j] /= s;
    }
    HeadSums whole, one_row, merged, a, b;
    add_prompt(whole, t, w, true, {true, true}, n);
    add_prompt(whole, t, w, true, {true, true}, n);
    add_prompt(one_row, t, w, true, {true, true}, 1);
    add_prompt(one_row, t, w, true, {true, true}, 1);
    CHECK(whole.rows == one_row.rows);
    CHECK(whole.argmax == one_row.argmax);
    add_prompt(a, t, w, true, {true, true});
    add_prompt(b, t, w, true, {true, true});
    merged += a;
    merged += b;
    for (const Measure m : {Measure::rows, Measure::mul, Measure::abs})
        for (std::size_t p = 0; p < 3; ++p)
            CHECK(attn::model::head_scores(merged, m).pattern[p] ==
                  doctest::Approx(attn::model::head_scores(whole, m).pattern[p]).epsilon(1e-14));
    // a shorter prompt merged into a longer one's histogram keeps offsets aligned
    HeadSums shorter;
    add_prompt(shorter, {1, 2, 3}, one_hot(3, [](std::size_t i) { return i == 0 ? 0 : i - 1; }),
               true, {});
    HeadSums longer = whole;
    longer += shorter;
    CHECK(longer.argmax[longer.reach() - 1] == whole.argmax[whole.reach() - 1] + 2);
    PromptHeadScorer s(t, true, {});
    CHECK(attn::test::invalid_argument_of([&] {
              s.add_rows(1, 1, w.data(), n);
          }).find("row 0 of 7 expected") != std::string::npos);
    CHECK(attn::test::invalid_argument_of([&] { s.finish(a); }).find("0 of 7") !=
          std::string::npos);
}

TEST_CASE("head scores: TransformerLens's mul and abs, rows and the statistics against numpy") {
    const auto ref = attn::io::read_npz(attn::test::data_path("heads/heads_reference.npz"));
    const auto get = [&](const std::string& name) -> const std::vector<double>& {
        const auto it = ref.find(name);
        REQUIRE_MESSAGE(it != ref.end(), name);
        return it->second.values;
    };
    for (const auto& [name, causal, prompts] : std::vector<std::tuple<std::string, bool, int>>{
             {"causal", true, 3}, {"bidirectional", false, 2}}) {
        for (const bool bos : {false, true})
            for (const bool self : {false, true}) {
                HeadSums sums;
                std::vector<std::vector<std::int64_t>> ids(static_cast<std::size_t>(prompts));
                for (int k = 0; k < prompts; ++k) {
                    for (const double v : get(fmt::format("{}_ids{}", name, k)))
                        ids[static_cast<std::size_t>(k)].push_back(static_cast<std::int64_t>(v));
                    add_prompt(sums, ids[static_cast<std::size_t>(k)],
                               get(fmt::format("{}_weights{}", name, k)), causal, {bos, self});
                }
                const std::string key = fmt::format("{}_bos{:d}_self{:d}", name, bos, self);
                for (const auto& [m, suffix] : {std::pair{Measure::rows, "rows"},
                                                {Measure::mul, "mul"},
                                                {Measure::abs, "abs"}}) {
                    const std::vector<double>& want = get(key + "_" + suffix);
                    const HeadScores h = attn::model::head_scores(sums, m);
                    for (std::size_t p = 0; p < 3; ++p)
                        CHECK_MESSAGE(h.pattern[p] == doctest::Approx(want[p]).epsilon(1e-12), key,
                                      " ", suffix, " ", p);
                }
                const std::vector<double>& stats = get(name + "_stats");
                const HeadScores h = attn::model::head_scores(sums, Measure::rows);
                CHECK(h.sink == doctest::Approx(stats[0]).epsilon(1e-12));
                CHECK(h.self == doctest::Approx(stats[1]).epsilon(1e-12));
                CHECK(h.entropy == doctest::Approx(stats[2]).epsilon(1e-12));
                CHECK(static_cast<double>(h.offset) == stats[3]);
                CHECK(h.positional == doctest::Approx(stats[4]).epsilon(1e-12));
            }
    }
}

TEST_CASE("head scores: the sink rate is the percent of heads with sink above 0.3") {
    std::vector<HeadScores> heads(4);
    heads[0].sink = 0.31;
    heads[1].sink = 0.3;
    heads[2].sink = 0.9;
    heads[3].sink = std::nan("");
    CHECK(attn::model::sink_rate(heads) == 50.0);
    CHECK(std::isnan(attn::model::sink_rate({})));
}
