// attn::AttentionWeights: heads' blocks of a given tensor in both layouts, the draws in their
// order, the views forward() reads and the rounding to a reduced dtype; the widths given
// tensors imply and the shapes they are checked against.
#include "attn/attention/weights.hpp"

#include <cstddef>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "attn/torch_random.hpp"

namespace {

// 0, 1, 2, ...: entry (i, j) of a (rows, cols) tensor is i cols + j.
std::vector<double> iota(std::size_t count) {
    std::vector<double> v(count);
    std::iota(v.begin(), v.end(), 0.0);
    return v;
}

}  // namespace

TEST_CASE("head_width: d of (d_in, H d) and (H, d_in, d), 0 for other shapes") {
    CHECK(attn::head_width({3, 8}, 2) == 4);
    CHECK(attn::head_width({3, 8}, 3) == 0);
    CHECK(attn::head_width({2, 3, 5}, 2) == 5);
    CHECK(attn::head_width({4, 3, 5}, 2) == 0);
    CHECK(attn::head_width({8}, 1) == 0);
}

TEST_CASE(
    "head_block: head h is columns h d .. (h+1) d - 1 of (d_in, H d), or slice h of the 3-d") {
    const std::vector<double> v = iota(24);
    // (3, 8), H = 2: head 1 = columns 4..7, entry (i, j) = 8 i + 4 + j
    const attn::GivenTensor side{v, {3, 8}};
    const auto b = attn::head_block<float>(side, 1, 2);
    REQUIRE(b.shape(0) == 3);
    REQUIRE(b.shape(1) == 4);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 4; ++j) CHECK(b(i, j) == float(8 * i + 4 + j));
    // (2, 3, 4): head 1 entry (i, j) = 12 + 4 i + j
    const attn::GivenTensor stacked{v, {2, 3, 4}};
    const auto s = attn::head_block<double>(stacked, 1, 2);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 4; ++j) CHECK(s(i, j) == double(12 + 4 * i + j));
    // the same weights in both layouts give the same blocks
    std::vector<double> side_values(24);
    for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 4; ++j)
                side_values[i * 8 + h * 4 + j] = v[h * 12 + i * 4 + j];
    CHECK(attn::head_block<double>({side_values, {3, 8}}, 1, 2) == s);
    CHECK_THROWS_AS(attn::head_block<double>(side, 2, 2), std::invalid_argument);
    CHECK_THROWS_AS(attn::head_block<double>({v, {3, 8}}, 0, 3), std::invalid_argument);
}

TEST_CASE("attention_weights: drawn matrices cast to T, a given one by blocks, biases after") {
    attn::TorchGenerator gen(0);
    attn::WeightDraws d;
    d.heads = 2, d.d_in = 3, d.d_query = d.d_key = 2, d.d_value = 4, d.d_out = 5, d.bias = true;
    const std::vector<double> wk = iota(12);  // W_k given: (3, 2 x 2)
    d.key = false;
    const attn::DrawnWeights drawn =
        attn::draw_attention_weights(gen, 123, d, attn::ProjectionInit::rand);
    attn::GivenWeights given;
    given.key = attn::GivenTensor{wk, {3, 4}};
    const auto w = attn::attention_weights<double>(drawn, given, 2, true);
    REQUIRE(w.query.size() == 2);
    for (std::size_t h = 0; h < 2; ++h) {
        CHECK(w.query[h] == xt::cast<double>(*drawn.query[h]));
        CHECK(w.value[h] == xt::cast<double>(*drawn.value[h]));
        CHECK(w.key[h] == attn::head_block<double>(*given.key, h, 2));
        REQUIRE(w.b_query[h].has_value());
        CHECK(*w.b_query[h] == xt::cast<double>(*drawn.b_query[h]));
    }
    CHECK(w.key[1](2, 1) == 11.0);  // row 2 of (3, 4), column 2 + 1
    REQUIRE(w.out.has_value());
    CHECK(w.out->shape(0) == 8);
    CHECK(w.out->shape(1) == 5);
    CHECK(*w.out == xt::cast<double>(*drawn.out));

    const attn::LayerWeights<double> v = w.views();
    REQUIRE(v.query.size() == 2);
    CHECK(v.query[1].weight.data == w.query[1].data());
    CHECK(v.value[0].in() == 3);
    CHECK(v.value[0].out() == 4);
    CHECK(v.query[0].bias == w.b_query[0]->data());
    CHECK(v.key[0].bias == nullptr);  // a given W_k has no drawn bias
    REQUIRE(v.output.has_value());
    CHECK(v.output->out() == 5);
    CHECK(attn::attention_weights<double>(drawn, given, 2, false).views().output == std::nullopt);
    CHECK_THROWS_AS(attn::attention_weights<double>(drawn, given, 3, true), std::invalid_argument);
}

TEST_CASE("AttentionWeights::round_to: every matrix and bias rounded once") {
    attn::AttentionWeights<float> w;
    w.query = w.key = w.value = {xt::xtensor<float, 2>{{1.0f + 1.0f / 512, 3.0f}}};
    w.b_query = w.b_key = w.b_value = {xt::xtensor<float, 1>{1.0f + 3.0f / 512}};
    w.out = xt::xtensor<float, 2>{{1.0f + 1.0f / 256}};
    w.round_to(attn::runtime::Reduced::bfloat16);
    // bfloat16 keeps 8 bits: 1 + 2^-9 is a tie to even 1; 1 + 3 2^-9 goes up to 1 + 2^-7
    CHECK(w.query[0](0, 0) == 1.0f);
    CHECK(w.value[0](0, 1) == 3.0f);
    CHECK((*w.b_key[0])(0) == 1.0f + 1.0f / 128);
    CHECK((*w.out)(0, 0) == 1.0f);  // 1 + 2^-8: a tie, to even
}

TEST_CASE("given weights: the widths they imply and the shapes they must have") {
    using Weight = attn::WeightShapeError::Weight;
    const std::vector<double> values = iota(64);
    const auto t = [&](std::vector<std::size_t> shape) {
        return std::optional(attn::GivenTensor{values, std::move(shape)});
    };
    const auto fault = [](const attn::GivenWeights& g, std::size_t heads, std::size_t d_q,
                          std::size_t d_v) -> std::optional<Weight> {
        try {
            attn::check_given_weights(g, heads, 3, d_q, d_q, d_v);
        } catch (const attn::WeightShapeError& e) {
            return e.weight;
        }
        return std::nullopt;
    };
    // 2 heads over d_in = 3: W_k (2, 3, 2) gives d_q = 2 when W_q is drawn, W_v (3, 8) d_v = 4
    attn::GivenWeights g{std::nullopt, t({2, 3, 2}), t({3, 8}), std::nullopt};
    const attn::GivenWidths w = attn::given_widths(g, 2);
    CHECK(w.d_q == 2);
    CHECK(w.d_v == 4);
    CHECK(attn::given_widths({t({3, 6}), t({2, 3, 2}), t({5}), std::nullopt}, 2).d_q == 3);
    CHECK(attn::given_widths({}, 2).d_q == 0);
    CHECK(!attn::check_given_weights(g, 2, 3, 2, 2, 4));  // no W_o
    CHECK(fault(g, 2, 3, 4) == Weight::key);
    CHECK(fault(g, 2, 2, 2) == Weight::value);
    g.query = t({3, 5});
    CHECK(fault(g, 2, 2, 4) == Weight::query);  // W_q first
    g.query = t({3, 4});
    g.out = t({8, 5});  // (H d_v, d_out)
    CHECK(attn::check_given_weights(g, 2, 3, 2, 2, 4) == std::size_t{5});
    g.out = t({7, 5});
    CHECK(fault(g, 2, 2, 4) == Weight::out);
    g.out = t({8, 0});
    CHECK(fault(g, 2, 2, 4) == Weight::out);
    g.out = t({8});
    CHECK(fault(g, 2, 2, 4) == Weight::out);
    // a value that is not finite, named as the tensor's and with its index
    std::vector<double> bad(values.begin(), values.begin() + 12);
    bad[4] = std::numeric_limits<double>::infinity();
    g.out = std::nullopt;
    g.key = attn::GivenTensor{bad, {2, 3, 2}, "wk.npy"};
    CHECK(fault(g, 2, 2, 4) == Weight::key);
    try {
        attn::check_given_weights(g, 2, 3, 2, 2, 4);
        FAIL_CHECK("a tensor holding inf was accepted");
    } catch (const attn::WeightShapeError& e) {
        CHECK(std::string(e.what()) ==
              "wk.npy: element (0, 2, 0) is inf; attention needs finite numbers");
    }
}

TEST_CASE("given weights: the message names the tensor, its shape and the shapes it may have") {
    const std::vector<double> values = iota(64);
    const auto message = [](const attn::GivenWeights& g, std::size_t heads, std::size_t d_q,
                            std::size_t d_v) {
        try {
            attn::check_given_weights(g, heads, 3, d_q, d_q, d_v);
        } catch (const attn::WeightShapeError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    attn::GivenWeights g;
    g.query = attn::GivenTensor{values, {4, 2}, "wq.npy"};
    CHECK(message(g, 1, 2, 2) ==
          "wq.npy has shape (4, 2); 1 head with d_in = 3 and d_q = 2 need "
          "(3, 2)");
    CHECK(message(g, 2, 2, 2) ==
          "wq.npy has shape (4, 2); 2 heads with d_in = 3 and d_q = 2 "
          "need (3, 4) or (2, 3, 2)");
    g.query.reset();
    g.value = attn::GivenTensor{values, {2, 3, 2}};  // no name: the matrix's
    CHECK(message(g, 3, 2, 4) ==
          "W_v has shape (2, 3, 2); 3 heads with d_in = 3 and d_v = 4 "
          "need (3, 12) or (3, 3, 4)");
    g.value.reset();
    g.out = attn::GivenTensor{values, {8}, "wo.npy"};
    CHECK(message(g, 2, 2, 4) ==
          "wo.npy has shape (8,); W_o needs 8 rows (heads x d_v) and any number of columns");
}

TEST_CASE("weight_draws: the widths of the layer, and what is not given drawn") {
    const std::vector<double> values = iota(24);
    const attn::GivenWeights g{std::nullopt, attn::GivenTensor{values, {2, 3, 2}}, std::nullopt,
                               std::nullopt};
    const attn::WeightDraws d = attn::weight_draws(g, 2, 3, 2, 2, 4, 5, true);
    CHECK(d.heads == 2);
    CHECK(d.d_in == 3);
    CHECK(d.d_query == 2);
    CHECK(d.d_key == 2);
    CHECK(d.d_value == 4);
    CHECK(d.d_out == std::optional<std::size_t>{5});
    CHECK(d.bias);
    CHECK(d.query);
    CHECK(!d.key);  // given
    CHECK(d.value);
    CHECK(d.out);
    const attn::WeightDraws none = attn::weight_draws({}, 1, 3, 2, 2, 4, std::nullopt, false);
    CHECK(!none.d_out);
    CHECK(!none.bias);
}
