#include "attn/text/model.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

using namespace attn::text;

namespace {

// "t0", "t1", ..., "t{n-1}".
std::vector<std::string> tokens(std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(fmt::format("t{}", i));
    return out;
}

}  // namespace

TEST_CASE("Vocabulary: add keeps the first of a repeated string or id, and find agrees with id") {
    Vocabulary v;
    const auto names = tokens(5000);
    for (std::size_t i = 0; i < names.size(); ++i) CHECK(v.add(names[i], static_cast<TokenId>(i)));
    CHECK(v.add("far", TokenId{1} << 40));
    CHECK(!v.add("t7", 9999));
    CHECK(!v.add("other", 7));
    CHECK(v.size() == 5001);
    CHECK(v.id("t7") == 7);
    CHECK(v.token(7) == "t7");
    CHECK(v.token(TokenId{1} << 40) == "far");
    CHECK(!v.id("other"));
    // find over more tokens than one group, present and absent, the empty string included.
    std::vector<std::string_view> queries;
    for (std::size_t i = 0; i < 100; ++i) {
        queries.push_back(names[i * 37 % names.size()]);
        queries.push_back(i % 2 ? "x" : "");
    }
    queries.push_back("far");
    std::vector<std::optional<TokenId>> ids(queries.size());
    v.find(queries, ids);
    for (std::size_t i = 0; i < queries.size(); ++i) CHECK(ids[i] == v.id(queries[i]));
    CHECK(ids.back() == TokenId{1} << 40);
    Vocabulary empty;
    std::vector<std::optional<TokenId>> none(2, 0);
    empty.find(std::vector<std::string_view>{"a", ""}, none);
    CHECK(none == std::vector<std::optional<TokenId>>{std::nullopt, std::nullopt});
}

TEST_CASE("BulkVocabulary: the same vocabulary as add(), or nullopt at a repeat") {
    const auto names = tokens(3000);
    BulkVocabulary bulk;
    for (std::size_t i = 0; i < names.size(); ++i) bulk.append(names[i], static_cast<TokenId>(i));
    bulk.append("negative", -3);
    bulk.append("far", TokenId{1} << 40);
    const std::optional<Vocabulary> v = std::move(bulk).done();
    REQUIRE(v);
    CHECK(v->size() == 3002);
    for (std::size_t i = 0; i < names.size(); ++i) {
        CHECK(v->id(names[i]) == static_cast<TokenId>(i));
        CHECK(v->token(static_cast<TokenId>(i)) == names[i]);
    }
    CHECK(v->id("negative") == -3);
    CHECK(v->token(TokenId{1} << 40) == "far");
    CHECK(!v->id("t3000"));

    BulkVocabulary string_twice;
    string_twice.append("a", 0);
    string_twice.append("b", 1);
    string_twice.append("a", 2);
    CHECK(!std::move(string_twice).done());
    BulkVocabulary id_twice;
    id_twice.append("a", 5);
    id_twice.append("b", 5);
    CHECK(!std::move(id_twice).done());
    BulkVocabulary sparse_twice;
    sparse_twice.append("a", -1);
    sparse_twice.append("b", -1);
    CHECK(!std::move(sparse_twice).done());
}
