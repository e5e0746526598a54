#include "cli/arguments.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include "support/text.hpp"
#include "support/throws.hpp"

namespace {

using attn::test::contains;
using attn::test::invalid_argument_of;

using u64 = std::uint64_t;
constexpr u64 kMax = std::numeric_limits<u64>::max();

}  // namespace

TEST_CASE("parse_slice: Python's half-open forms") {
    auto s = attn::cli::parse_slice("6:10", 32);
    CHECK(s.begin == 6);
    CHECK(s.end == 10);
    CHECK(s.size() == 4);
    s = attn::cli::parse_slice("-4:", 32);
    CHECK(s.begin == 28);
    CHECK(s.end == 32);
    s = attn::cli::parse_slice(":3", 32);
    CHECK(s.begin == 0);
    CHECK(s.end == 3);
    s = attn::cli::parse_slice(":", 5);
    CHECK(s.size() == 5);
    s = attn::cli::parse_slice("2:-1", 5);
    CHECK(s.begin == 2);
    CHECK(s.end == 4);
    s = attn::cli::parse_slice("3", 5);
    CHECK(s.begin == 3);
    CHECK(s.end == 4);
    s = attn::cli::parse_slice("-1", 5);
    CHECK(s.begin == 4);
    CHECK(s.end == 5);
}

TEST_CASE("parse_slice: a step, as Python's list(range(d))[A:B:STEP]") {
    auto s = attn::cli::parse_slice("0:8:2", 32);
    CHECK(s.size() == 4);
    CHECK(s[0] == 0);
    CHECK(s[3] == 6);
    s = attn::cli::parse_slice("::5", 12);  // 0 5 10
    CHECK(s.size() == 3);
    CHECK(s[2] == 10);
    s = attn::cli::parse_slice("1:8:3", 32);  // 1 4 7
    CHECK(s.size() == 3);
    CHECK(s[2] == 7);
    s = attn::cli::parse_slice("-4::", 32);  // an empty STEP is 1
    CHECK(s.size() == 4);
    CHECK_THROWS_AS(attn::cli::parse_slice("0:8:0", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::cli::parse_slice("8:0:-2", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::cli::parse_slice("0:8:x", 32), std::invalid_argument);
}

TEST_CASE("parse_seed: torch.manual_seed's range, negative seeds wrapped modulo 2^64") {
    using attn::cli::parse_seed;
    CHECK(parse_seed("123") == 123);
    CHECK(parse_seed("18446744073709551615") == 18446744073709551615ULL);
    // torch.manual_seed(-1).initial_seed() == 18446744073709551615
    CHECK(parse_seed("-1") == 18446744073709551615ULL);
    // torch.manual_seed(-2**63).initial_seed() == 9223372036854775808
    CHECK(parse_seed("-9223372036854775808") == 9223372036854775808ULL);
    CHECK_THROWS_AS(parse_seed("18446744073709551616"), std::invalid_argument);
    CHECK_THROWS_AS(parse_seed("-9223372036854775809"), std::invalid_argument);
    CHECK_THROWS_AS(parse_seed(""), std::invalid_argument);
    CHECK_THROWS_AS(parse_seed("12x"), std::invalid_argument);
    CHECK_THROWS_AS(parse_seed("+5"), std::invalid_argument);
    // The one integer grammar: an exponent that gives a whole number.
    CHECK(parse_seed("1e3") == 1000);
    CHECK(parse_seed("-1e0") == 18446744073709551615ULL);
    CHECK_THROWS_AS(parse_seed("1.5"), std::invalid_argument);
}

TEST_CASE("parse_picture_size and parse_range: WxH in pixels, LO:HI with LO < HI") {
    using attn::cli::parse_picture_size;
    using attn::cli::parse_range;
    CHECK(parse_picture_size("1600x900") == std::pair{1600, 900});
    CHECK(parse_picture_size("1X16384") == std::pair{1, 16384});
    for (const char* bad : {"1600", "0x100", "100x0", "16385x10", "-5x10", "ax5", "5x", "x5", ""})
        CHECK_THROWS_AS(parse_picture_size(bad), std::invalid_argument);
    CHECK(parse_range("-1:1") == std::pair{-1.0, 1.0});
    CHECK(parse_range("0:1e-3") == std::pair{0.0, 1e-3});
    CHECK(parse_range("-2.5:-1") == std::pair{-2.5, -1.0});
    for (const char* bad : {"1:1", "2:1", "1", ":1", "0:", "a:b", "0:inf", "nan:1", ""})
        CHECK_THROWS_AS(parse_range(bad), std::invalid_argument);
}

TEST_CASE("whole_number_text: an exponent or a point that gives a whole number, as digits") {
    using attn::cli::whole_number_text;
    CHECK(whole_number_text("1e6") == "1000000");
    CHECK(whole_number_text("1E6") == "1000000");
    CHECK(whole_number_text("2.5e3") == "2500");
    CHECK(whole_number_text("1e+2") == "100");
    CHECK(whole_number_text("-3e2") == "-300");
    CHECK(whole_number_text("120e-1") == "12");
    CHECK(whole_number_text("7") == "7");
    CHECK(whole_number_text("-0") == "0");
    CHECK(whole_number_text("0.0e5") == "0");
    CHECK(whole_number_text("0012") == "12");
    CHECK(whole_number_text("1e19") == "10000000000000000000");
    // Not whole, or not a number: nullopt (the option's own message then says so).
    CHECK_FALSE(whole_number_text("1.5").has_value());
    CHECK_FALSE(whole_number_text("1e-3").has_value());
    CHECK_FALSE(whole_number_text("sixty").has_value());
    CHECK_FALSE(whole_number_text("1e").has_value());
    CHECK_FALSE(whole_number_text("e5").has_value());
    CHECK_FALSE(whole_number_text("").has_value());
    CHECK_FALSE(whole_number_text("0x10").has_value());
    CHECK_FALSE(whole_number_text(" 5").has_value());
    // A huge exponent stays a (too long) number, so that range checks say "out of range".
    CHECK(whole_number_text("1e400").value().size() > 20);
}

TEST_CASE("parse_slice: out of range, empty and malformed are errors") {
    CHECK_THROWS_AS(attn::cli::parse_slice("3:40", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::cli::parse_slice("-33:", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::cli::parse_slice("5:5", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::cli::parse_slice("10:6", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::cli::parse_slice("a:b", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::cli::parse_slice("1.5:3", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::cli::parse_slice("", 32), std::invalid_argument);
    CHECK_THROWS_AS(attn::cli::parse_slice("32", 32), std::invalid_argument);
    try {
        attn::cli::parse_slice("3:40", 32);
    } catch (const std::invalid_argument& e) {
        CHECK(std::string(e.what()).find("an index -32..31 (-1 the last) or a range A:B with A, B "
                                         "in -32..32") != std::string::npos);
    }
}

TEST_CASE("parse_offsets: single offsets, lists and ranges") {
    using V = std::vector<std::int64_t>;
    CHECK(attn::cli::parse_offsets("5", 100) == V{5});
    CHECK(attn::cli::parse_offsets("-3", 100) == V{-3});
    CHECK(attn::cli::parse_offsets("1,5,10", 100) == V{1, 5, 10});
    CHECK(attn::cli::parse_offsets("1:4", 100) == V{1, 2, 3, 4});
    CHECK(attn::cli::parse_offsets("0:10:5", 100) == V{0, 5, 10});
    CHECK(attn::cli::parse_offsets("10:1:-4", 100) == V{10, 6, 2});
    CHECK(attn::cli::parse_offsets("-2:2,7", 100) == V{-2, -1, 0, 1, 2, 7});
    CHECK(attn::cli::parse_offsets("3:1", 100) == V{3, 2, 1});
    for (const char* bad :
         {"", "x", "1,", "1:", ":3", "1:5:0", "1:5:-1", "1.5", "1:2:3:4", "99999999999999999"})
        CHECK_THROWS_AS(attn::cli::parse_offsets(bad, 100), std::invalid_argument);
    CHECK_THROWS_AS(attn::cli::parse_offsets("1:1000", 100), std::invalid_argument);
}

TEST_CASE("parse_sweep: accepts ranges and lists") {
    using V = std::vector<u64>;
    SUBCASE("multiplicative, stop included when reached") {
        const attn::cli::Sweep s = attn::cli::parse_sweep("n=16:65536:x2");
        CHECK(s.variable == attn::cli::SizeVariable::n);
        REQUIRE(s.values.size() == 13);  // 2^4 .. 2^16
        CHECK(s.values.front() == 16);
        CHECK(s.values.back() == 65536);
        CHECK(attn::cli::parse_sweep("n=16:100:x2").values == V{16, 32, 64});
        CHECK(attn::cli::parse_sweep("d=3:81:x3").values == V{3, 9, 27, 81});
    }
    SUBCASE("additive") {
        CHECK(attn::cli::parse_sweep("d=8:32:+8").values == V{8, 16, 24, 32});
        CHECK(attn::cli::parse_sweep("d=8:32:+8").variable == attn::cli::SizeVariable::d);
        CHECK(attn::cli::parse_sweep("r=5:5:+1").variable == attn::cli::SizeVariable::r);
        CHECK(attn::cli::parse_sweep("k=1:6:+2").values == V{1, 3, 5});
        CHECK(attn::cli::parse_sweep("r=5:5:+1").values == V{5});
    }
    SUBCASE("plain lists keep their order") {
        CHECK(attn::cli::parse_sweep("n=16,32,64").values == V{16, 32, 64});
        CHECK(attn::cli::parse_sweep("k=7,3").values == V{7, 3});
        CHECK(attn::cli::parse_sweep("k=5").values == V{5});
    }
    SUBCASE("steps that would overflow end the range") {
        const attn::cli::Sweep s = attn::cli::parse_sweep("n=1:18446744073709551615:x2");
        REQUIRE(s.values.size() == 64);
        CHECK(s.values.back() == u64{1} << 63);
        CHECK(attn::cli::parse_sweep("n=18446744073709551614:18446744073709551615:+5").values ==
              V{kMax - 1});
    }
    SUBCASE("exactly max_points is fine") {
        CHECK(attn::cli::parse_sweep("n=1:10000:+1").values.size() == 10000);
        CHECK(attn::cli::parse_sweep("n=1:5:+1", 5).values.size() == 5);
    }
}

TEST_CASE("parse_sweep: rejects bad specs and names the problem") {
    const auto problem = [](std::string spec, std::size_t max_points = 10000) {
        return invalid_argument_of([&] { attn::cli::parse_sweep(spec, max_points); });
    };
    CHECK(contains(problem("n16"), "expected <var>=<values>"));
    CHECK(contains(problem("q=1,2"), "unknown variable 'q'"));
    CHECK(contains(problem("=1,2"), "unknown variable ''"));
    CHECK(contains(problem("n="), "no values"));
    CHECK(contains(problem("n=1,,2"), "empty value"));
    CHECK(contains(problem("n=1,2,"), "empty value"));
    CHECK(contains(problem("n=0,1"), "is 0"));
    CHECK(contains(problem("n=-4"), "negative"));
    CHECK(contains(problem("n=-4:8:x2"), "negative"));
    CHECK(contains(problem("n=1.5"), "not a decimal integer"));
    CHECK(contains(problem("n= 16"), "not a decimal integer"));
    CHECK(contains(problem("n=+16"), "not a decimal integer"));
    CHECK(contains(problem("n=18446744073709551616"), "larger than 2^64-1"));
    CHECK(contains(problem("n=1:8"), "start:stop:xF"));
    CHECK(contains(problem("n=1:8:x2:3"), "start:stop:xF"));
    CHECK(contains(problem("n=1:8:*2"), "must be xF"));
    CHECK(contains(problem("n=1:8:"), "must be xF"));
    CHECK(contains(problem("n=1:8:x1"), "never advances"));
    CHECK(contains(problem("n=1:8:+0"), "is 0"));
    CHECK(contains(problem("n=1:0:+1"), "is 0"));
    CHECK(contains(problem("n=8:1:x2"), "empty range"));
    CHECK(contains(problem("n=1,2:8:x2"), "cannot be mixed"));
    CHECK(contains(problem("n=1:100000:+1"), "more than 10000 points"));
    CHECK(contains(problem("n=1,2,3,4,5,6", 5), "more than 5 points"));
    CHECK(problem("n=1:8:x2").empty());
    CHECK(contains(problem("n=8:1:x2"), "sweep 'n=8:1:x2'"));  // the spec is quoted
}

TEST_CASE("parse_size: bytes or K, M, G, T in powers of 1024") {
    using attn::cli::parse_size;
    CHECK(parse_size("123456") == 123456);
    CHECK(parse_size("1k") == 1024);
    CHECK(parse_size("1.5K") == 1536);
    CHECK(parse_size("512M") == u64{512} << 20);
    CHECK(parse_size("4G") == u64{4} << 30);
    CHECK(parse_size("2T") == u64{2} << 40);
    CHECK(parse_size("1.9") == 1);  // rounded down to whole bytes
    for (const char* bad :
         {"", "G", "4X", "4GB", "4 G", "0", "0.5", "-1", "0G", "nan", "1e20", "16777216T"})
        CHECK(contains(invalid_argument_of([&] { parse_size(bad); }),
                       "' is not a size; use bytes or a number with K, M, G or T (e.g. 4G)"));
}

TEST_CASE("split_list and parse_index: the comma lists of --show, --permute and --valid-len") {
    using attn::cli::parse_index;
    using attn::cli::split_list;
    CHECK(split_list("scores,weights") == std::vector<std::string>{"scores", "weights"});
    CHECK(split_list("a,,b") == std::vector<std::string>{"a", "", "b"});
    CHECK(split_list("") == std::vector<std::string>{""});
    CHECK(split_list("5,") == std::vector<std::string>{"5", ""});
    CHECK(parse_index("0") == std::optional<std::size_t>(0));
    CHECK(parse_index("2300") == std::optional<std::size_t>(2300));
    for (const char* bad : {"", "-1", "3x", " 3", "+3", "99999999999999999999999"})
        CHECK_MESSAGE(!parse_index(bad), bad);
}

TEST_CASE("parse_indices: a comma list of non-negative integers, the bad field named") {
    CHECK(attn::cli::parse_indices("3,0,2,0", "an index") == std::vector<std::size_t>{3, 0, 2, 0});
    CHECK(attn::cli::parse_indices("7", "a length") == std::vector<std::size_t>{7});
    CHECK_THROWS_WITH_AS(attn::cli::parse_indices("1,x,2", "an index"), "'x' is not an index",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(attn::cli::parse_indices("1,,2", "a length"), "'' is not a length",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(attn::cli::parse_indices("-1", "an index"), "'-1' is not an index",
                         std::invalid_argument);
}

TEST_CASE("parse_token_ids: a comma list of ids below the vocabulary, in order") {
    using attn::cli::parse_token_ids;
    CHECK(parse_token_ids("50256,464,0,464", 50257) ==
          std::vector<std::int64_t>{50256, 464, 0, 464});
    const std::string tail =
        " is not a token id of this model (whole numbers 0..99, comma-separated)";
    CHECK(invalid_argument_of([] { parse_token_ids("3,100", 100); }) == "'100'" + tail);
    CHECK(invalid_argument_of([] { parse_token_ids("3,,4", 100); }) == "''" + tail);
    CHECK(invalid_argument_of([] { parse_token_ids("-1", 100); }) == "'-1'" + tail);
    CHECK(invalid_argument_of([] { parse_token_ids("7x", 100); }) == "'7x'" + tail);
}
