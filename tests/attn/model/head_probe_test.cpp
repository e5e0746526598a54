// The repeat probe against PyTorch 1.13's torch.randint (tests/data/torch-vectors/
// randint_cases.csv: seed 0, randint(53, (8, 50)), the probe of tests/data/models/induction).
#include "attn/model/head_probe.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "support/reference_data.hpp"

TEST_CASE("head probe: [BOS] r r with r as torch.randint indexes the allowed ids") {
    const auto table =
        attn::test::read_csv(attn::test::data_path("torch-vectors/randint_cases.csv"));
    std::vector<std::int64_t> drawn;
    for (const std::string& v : table.select("value", "high", "53")) drawn.push_back(std::stoll(v));
    REQUIRE(drawn.size() == 400);
    // ids 0 .. 53 without 53 (<|endoftext|>): allowed[k] = k
    const std::vector<std::int64_t> special{53};
    const auto allowed = attn::model::probe_ids(0, 54, special);
    REQUIRE(allowed.size() == 53);
    const auto prompts = attn::model::repeat_probe(allowed, 53, 8, 50, 0);
    REQUIRE(prompts.size() == 8);
    for (std::size_t b = 0; b < 8; ++b) {
        REQUIRE(prompts[b].size() == 101);
        CHECK(prompts[b][0] == 53);
        for (std::size_t k = 0; k < 50; ++k) {
            CHECK(prompts[b][1 + k] == drawn[b * 50 + k]);
            CHECK(prompts[b][51 + k] == drawn[b * 50 + k]);
        }
    }
    // a range without specials (--probe-ids 26:52, the capitals), no BOS: ids 26 + draw
    const auto capitals = attn::model::probe_ids(26, 52, special);
    const auto shifted = attn::model::repeat_probe(capitals, std::nullopt, 1, 4, 5);
    std::vector<std::int64_t> want;
    for (const std::string& v : table.select("value", "seed", "5"))
        want.push_back(26 + std::stoll(v));
    REQUIRE(shifted.size() == 1);
    CHECK(shifted[0] == std::vector<std::int64_t>{want[0], want[1], want[2], want[3], want[0],
                                                  want[1], want[2], want[3]});
    CHECK_THROWS_AS(attn::model::repeat_probe({}, std::nullopt, 1, 1, 0), std::invalid_argument);
}
