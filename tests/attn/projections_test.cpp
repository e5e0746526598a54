// attn::draw_projection: the notebook's W_query, W_key, W_value to the bit, and nn.Linear's
// weight transposed.
#include "attn/projections.hpp"

#include <cmath>
#include <vector>

#include <doctest/doctest.h>

#include "support/reference_data.hpp"

namespace {

std::vector<float> flat(const xt::xtensor<float, 2>& m) {
    return {m.begin(), m.end()};
}

std::vector<std::uint64_t> notebook_bits(const char* name) {
    static const std::string json =
        attn::test::read_text_file(attn::test::shared_path("data/raschka/notebook_seed123.json"));
    return attn::test::parse_hex_all(attn::test::json_tensor_array(json, name, "bits"));
}

}  // namespace

TEST_CASE("draw_projection: rand draws the notebook's W_query, W_key, W_value in order") {
    attn::TorchGenerator gen(123);
    const auto wq = attn::draw_projection(gen, 3, 2, attn::ProjectionInit::rand);
    const auto wk = attn::draw_projection(gen, 3, 2, attn::ProjectionInit::rand);
    const auto wv = attn::draw_projection(gen, 3, 4, attn::ProjectionInit::rand);
    CHECK(wv.shape(0) == 3);
    CHECK(wv.shape(1) == 4);
    attn::test::check_bits(flat(wq), notebook_bits("W_query"), "W_query");
    attn::test::check_bits(flat(wk), notebook_bits("W_key"), "W_key");
    attn::test::check_bits(flat(wv), notebook_bits("W_value"), "W_value");
}

TEST_CASE("draw_projection: linear is nn.Linear(d_in, d_out, bias=False).weight transposed") {
    attn::TorchGenerator a(7), b(7);
    const auto w = attn::draw_projection(a, 5, 3, attn::ProjectionInit::linear);  // (5, 3)
    const auto layer = attn::torch_linear<float>(b, 5, 3, false);                 // (3, 5)
    REQUIRE(w.shape(0) == 5);
    REQUIRE(w.shape(1) == 3);
    const float bound = static_cast<float>(1.0 / std::sqrt(5.0));
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
            CHECK(w(i, j) == layer.weight(j, i));
            CHECK(std::fabs(w(i, j)) <= bound);
        }
    CHECK(a.u32() == b.u32());  // the same number of draws
    CHECK_THROWS_AS(attn::draw_projection(a, 0, 3, attn::ProjectionInit::rand),
                    std::invalid_argument);
}
