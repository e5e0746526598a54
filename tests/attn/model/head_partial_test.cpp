// A partial's arrays: HeadSums packed into a sums row and back, and check_head_partial on a
// valid partial of the tiny GPT-2 (3 layers, 4 heads, 96 ids, causal) and on arrays that are
// not one, each refusal naming its array.
#include "attn/model/head_partial.hpp"
#include "support/test_models.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

namespace {

// Layers {1}, heads {0, 2}; prompts of 3 and 2 tokens: 2 + 1 queries a head (causal), argmax
// offsets -2 .. 2 with every query at offset -1.
attn::model::PartialArrays valid() {
    attn::model::PartialArrays a;
    a.layers = {{1}, {1}};
    a.heads = {{2}, {0, 2}};
    a.prompt_lengths = {{2}, {3, 2}};
    a.prompt_ids = {{5}, {7, 8, 9, 95, 0}};
    attn::model::HeadSums s;
    s.rows = {1.5, 0.25, 0};
    s.rows_queries = {3, 3, 3};
    s.plain = s.rows;
    s.plain_queries = s.rows_queries;
    s.prompts = 2;
    s.sink = 0.5;
    s.entropy = 1.25;
    s.queries = 3;
    s.argmax = {0, 3, 0, 0, 0};
    for (int h = 0; h < 2; ++h) {
        const auto row = attn::model::pack_head_sums(s);
        a.sums.values.insert(a.sums.values.end(), row.begin(), row.end());
        a.argmax.values.insert(a.argmax.values.end(), s.argmax.begin(), s.argmax.end());
    }
    a.sums.shape = {2, attn::model::kPartialSums};
    a.argmax.shape = {2, 5};
    return a;
}

// The array check_head_partial names for a.
std::string refused(const attn::model::PartialArrays& a) {
    try {
        attn::model::check_head_partial(a, attn::test::model_config("gpt2"));
    } catch (const attn::model::PartialError& e) {
        return e.member;
    }
    return "";
}

}  // namespace

TEST_CASE("pack_head_sums and unpack_head_sums: a round trip of every field") {
    attn::model::HeadSums s;
    s.rows = {1, 2, 3};
    s.rows_queries = {4, 5, 6};
    s.plain = {7, 8, 9};
    s.plain_queries = {10, 11, 12};
    s.mul = {13, 14, 15};
    s.abs = {16, -17, 18};
    s.prompts = 19;
    s.sink = 20;
    s.self = 21;
    s.entropy = 22;
    s.queries = 23;
    const auto row = attn::model::pack_head_sums(s);
    for (std::size_t c = 0; c < row.size(); ++c) CHECK(std::abs(row[c]) == double(c + 1));
    const std::vector<double> argmax{1, 0, 22};
    const auto back = attn::model::unpack_head_sums(row.data(), argmax.data(), 3);
    CHECK(back.rows == s.rows);
    CHECK(back.plain_queries == s.plain_queries);
    CHECK(back.abs == s.abs);
    CHECK(back.queries == 23);
    CHECK(back.argmax == std::vector<std::uint64_t>{1, 0, 22});
}

TEST_CASE("check_head_partial: a valid partial's prompts, and each array that is not one") {
    const auto p = attn::model::check_head_partial(valid(), attn::test::model_config("gpt2"));
    CHECK(p.layers == std::vector<std::size_t>{1});
    CHECK(p.heads == std::vector<std::size_t>{0, 2});
    CHECK(p.width == 5);
    REQUIRE(p.prompts.size() == 2);
    CHECK(p.prompts[1] == std::vector<std::int64_t>{95, 0});

    auto a = valid();
    a.layers.values = {3};  // the model has 3 layers
    CHECK(refused(a) == "layers");
    a = valid();
    a.heads.values = {2, 0};  // not increasing
    CHECK(refused(a) == "heads");
    a = valid();
    a.prompt_lengths.values = {2.5, 2.5};
    CHECK(refused(a) == "prompt_lengths");
    a = valid();
    a.prompt_ids.values[4] = 96;  // past the vocabulary
    CHECK(refused(a) == "prompt_ids");
    a = valid();
    a.sums.values[19] = std::nan("");  // sink
    CHECK(refused(a) == "sums");
    a = valid();
    a.sums.values[22] = 4;  // queries: the lengths give 3
    CHECK(refused(a) == "sums");
    a = valid();
    a.argmax.values[1] = 2;  // the row adds up to 2 of 3 queries
    CHECK(refused(a) == "argmax");
    a = valid();
    a.argmax.shape = {2, 3};
    CHECK(refused(a) == "argmax");
}
