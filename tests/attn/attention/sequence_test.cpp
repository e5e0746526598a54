// attn::Sequence: a sentence's vocabulary and ids, its permutation X[p] and the masks of
// each batch element.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "attn/attention/sequence.hpp"

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
    CHECK_THROWS_AS(attn::sequence_masks({one, two}, base, wrong), std::invalid_argument);
}
