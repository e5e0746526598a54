// model::top_ids: the likeliest next tokens of attend --model's `next`, in order.
#include "attn/model/run.hpp"

#include <cstddef>
#include <vector>

#include <doctest/doctest.h>

TEST_CASE("top_ids: likeliest first, ties by the smaller id, k clipped to the vocabulary") {
    const std::vector<double> p{0.1, 0.3, 0.05, 0.3, 0.25};
    CHECK(attn::model::top_ids(p, 3) == std::vector<std::size_t>{1, 3, 4});
    CHECK(attn::model::top_ids(p, 1) == std::vector<std::size_t>{1});
    CHECK(attn::model::top_ids(p, 10) == std::vector<std::size_t>{1, 3, 4, 0, 2});
    CHECK(attn::model::top_ids(p, 0).empty());
    CHECK(attn::model::top_ids({}, 4).empty());
}
