#include "attn/slice.hpp"

#include <doctest/doctest.h>

TEST_CASE("parse_slice: Python's half-open forms") {
    auto s = attn::parse_slice("6:10", 32);
    CHECK(s.begin == 6);
    CHECK(s.end == 10);
    CHECK(s.size() == 4);
    s = attn::parse_slice("-4:", 32);
    CHECK(s.begin == 28);
    CHECK(s.end == 32);
    s = attn::parse_slice(":3", 32);
    CHECK(s.begin == 0);
    CHECK(s.end == 3);
    s = attn::parse_slice(":", 5);
    CHECK(s.size() == 5);
    s = attn::parse_slice("2:-1", 5);
    CHECK(s.begin == 2);
    CHECK(s.end == 4);
    s = attn::parse_slice("3", 5);
    CHECK(s.begin == 3);
    CHECK(s.end == 4);
    s = attn::parse_slice("-1", 5);
    CHECK(s.begin == 4);
    CHECK(s.end == 5);
}

TEST_CASE("parse_slice: out of range, empty and malformed are errors") {
    CHECK_THROWS_AS(attn::parse_slice("3:40", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::parse_slice("-33:", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::parse_slice("5:5", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::parse_slice("10:6", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::parse_slice("a:b", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::parse_slice("1.5:3", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::parse_slice("", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::parse_slice("32", 32), std::invalid_argument);
    try {
        attn::parse_slice("3:40", 32);
    } catch (const std::invalid_argument& e) {
        CHECK(std::string(e.what()).find("-32 to 32") != std::string::npos);
    }
}
