#include "runtime/memory_budget.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

using attn::runtime::BudgetExceeded;
using attn::runtime::SizeOverflow;

namespace {
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
}  // namespace

TEST_CASE("memory_budget: a request above the limit is refused with what, how much, the limit") {
    attn::runtime::set_memory_limit(64 * kMiB);
    CHECK(attn::runtime::memory_limit() == 64 * kMiB);
    CHECK_NOTHROW(attn::runtime::reserve(64 * kMiB, "the table"));  // the limit itself fits
    try {
        attn::runtime::reserve(96 * kMiB + 1, "the attention scores");
        FAIL("96 MiB passed a 64 MiB limit");
    } catch (const BudgetExceeded& e) {
        CHECK(std::string(e.what()) ==
              "the attention scores: needs 96.0 MiB of memory, above the limit of 64.0 MiB");
        CHECK(e.request == "the attention scores");
        CHECK(e.needed == 96 * kMiB + 1);
        CHECK(e.limit == 64 * kMiB);
    }
    attn::runtime::set_memory_limit(0);  // back to the default: half the physical memory
    CHECK(attn::runtime::memory_limit() == attn::runtime::physical_memory() / 2);
    if (attn::runtime::physical_memory() > 0) {
        CHECK_THROWS_AS(attn::runtime::reserve(attn::runtime::physical_memory(), "all of it"),
                        BudgetExceeded);
        CHECK_NOTHROW(attn::runtime::reserve(attn::runtime::memory_limit(), "half"));
    }
}

TEST_CASE("memory_budget: checked_product refuses products beyond 2^64 - 1") {
    using attn::runtime::checked_product;
    CHECK(checked_product({}, "nothing") == 1);
    CHECK(checked_product({3, 5, 7}, "x") == 105);
    CHECK(checked_product({std::uint64_t{1} << 32, (std::uint64_t{1} << 32) - 1}, "x") ==
          kMax - ((std::uint64_t{1} << 32) - 1));
    CHECK(checked_product({kMax, 1}, "x") == kMax);
    CHECK(checked_product({kMax, 2, 0}, "x") == 0);  // a zero factor: nothing to allocate
    try {
        checked_product({std::uint64_t{1} << 32, std::uint64_t{1} << 32}, "the scores");
        FAIL("2^64 did not overflow");
    } catch (const SizeOverflow& e) {
        CHECK(std::string(e.what()) == "the scores: overflows 64 bits");
        CHECK(e.request == "the scores");
    }
    CHECK_THROWS_AS(checked_product({kMax / 3 + 1, 3}, "x"), SizeOverflow);
    CHECK(attn::runtime::checked_mul(kMax / 3, 3, "x") == kMax);
    CHECK_THROWS_AS(attn::runtime::checked_mul(kMax / 3 + 1, 3, "x"), SizeOverflow);
    CHECK(attn::runtime::checked_add(kMax - 1, 1, "x") == kMax);
    CHECK_THROWS_AS(attn::runtime::checked_add(kMax, 1, "x"), SizeOverflow);
}

TEST_CASE("memory_budget: human_bytes in powers of 1024") {
    using attn::runtime::human_bytes;
    CHECK(human_bytes(0) == "0 B");
    CHECK(human_bytes(1023) == "1023 B");
    CHECK(human_bytes(1024) == "1.0 KiB");
    CHECK(human_bytes(1536) == "1.5 KiB");
    CHECK(human_bytes(3 * kMiB) == "3.0 MiB");
    CHECK(human_bytes(std::uint64_t{5} << 30) == "5.0 GiB");
    CHECK(human_bytes(kMax) == "16.0 EiB");
}
