#include "attn/positions/t5.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/positions/reference.hpp"

using attn::positions::T5Buckets;

TEST_CASE("t5: bucket ids identical to Hugging Face's torch code (tests/data/t5)") {
    std::ifstream in(attn_test::data_dir() + "/t5/buckets_torch.txt");
    REQUIRE(in);
    std::string line;
    int configurations = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        T5Buckets t;
        int bidirectional = 0;
        fields >> t.num_buckets >> t.max_distance >> bidirectional;
        t.bidirectional = bidirectional == 1;
        std::size_t differ = 0, count = 0;
        for (std::int64_t r = -600; r <= 600; ++r, ++count) {
            std::int64_t want = -1;
            fields >> want;
            differ += attn::positions::t5_bucket(r, t) != want;
        }
        INFO("B " << t.num_buckets << ", D " << t.max_distance << ", bidirectional "
                  << t.bidirectional);
        CHECK(fields);
        CHECK(count == 1201);
        CHECK(differ == 0);
        ++configurations;
    }
    CHECK(configurations == 9);
}

TEST_CASE("t5: the default buckets by hand, and the matrix rows") {
    const T5Buckets t;  // 32 buckets, 128, bidirectional: 16 per side, exact below 8
    CHECK(attn::positions::t5_bucket(0, t) == 0);
    CHECK(attn::positions::t5_bucket(-7, t) == 7);
    CHECK(attn::positions::t5_bucket(7, t) == 16 + 7);
    // 8 + 2 log2(d / 8): d = 16 is exactly 10 in reals; float32 gives 10 as torch does.
    CHECK(attn::positions::t5_bucket(-16, t) == 10);
    CHECK(attn::positions::t5_bucket(-1000, t) == 15);
    CHECK(attn::positions::t5_bucket(1000, t) == 31);
    T5Buckets causal;
    causal.bidirectional = false;
    CHECK(attn::positions::t5_bucket(5, causal) == 0);  // future keys
    CHECK(attn::positions::t5_bucket(-5, causal) == 5);
    CHECK(attn::positions::t5_bucket(-10000, causal) == 31);
    std::vector<std::int64_t> rows(2 * 4);
    attn::positions::t5_bucket_rows(t, 4, 2, 2, rows.data());  // rows i = 2, 3 of 4 x 4
    const std::vector<std::int64_t> want{2, 1, 0, 17, 3, 2, 1, 0};
    CHECK(rows == want);
}

TEST_CASE("t5: too few buckets or max_distance within the exact range are refused") {
    auto message = [](const T5Buckets& t) {
        try {
            attn::positions::validate(t);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    T5Buckets t;
    CHECK(message(t) == "accepted");
    t.num_buckets = 3;
    CHECK(message(t).rfind("num_buckets:", 0) == 0);
    t.bidirectional = false;
    CHECK(message(t) == "accepted");  // causal needs 2; exact range 1 < 128
    t.num_buckets = 1;
    CHECK(message(t).rfind("num_buckets:", 0) == 0);
    t = T5Buckets{};
    t.max_distance = 8;  // exact range 32 / 4 = 8
    CHECK(message(t).rfind("max_distance:", 0) == 0);
    t.max_distance = 9;
    CHECK(message(t) == "accepted");
    t.bidirectional = false;  // exact range 16
    CHECK(message(t).rfind("max_distance:", 0) == 0);
    std::vector<std::int64_t> row(4);
    CHECK_THROWS_AS(attn::positions::t5_bucket_rows(t, 4, 0, 1, row.data()), std::invalid_argument);
}
