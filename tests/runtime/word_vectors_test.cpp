// runtime::WordVectors: the row of a word once indexed, the first of a word listed twice.
#include "runtime/word_vectors.hpp"

#include <doctest/doctest.h>

TEST_CASE("WordVectors: find gives a word's row after index(), the first of a repeat") {
    attn::runtime::WordVectors v;
    v.words = {"the", "of", "the"};
    v.dim = 1;
    v.values = {1, 2, 3};
    CHECK(!v.find("the"));  // not indexed yet
    v.index();
    CHECK(v.find("the") == std::size_t{0});
    CHECK(v.find("of") == std::size_t{1});
    CHECK(!v.find("The"));
    v.words.push_back("and");
    v.values.push_back(4);
    v.index();
    CHECK(v.find("and") == std::size_t{3});
}
