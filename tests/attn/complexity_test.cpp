#include "attn/complexity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include "support/text.hpp"
#include "support/throws.hpp"

namespace {

using attn::test::contains;
using attn::test::invalid_argument_of;

using attn::Layer;
using attn::LayerSizes;
using u64 = std::uint64_t;

constexpr u64 kMax = std::numeric_limits<u64>::max();

LayerSizes sizes(u64 n, u64 d, u64 k = 3, u64 r = 2, bool projections = false) {
    return LayerSizes{n, d, k, r, projections};
}

}  // namespace

TEST_CASE("complexity: row names round-trip and the symbolic table matches Table 1") {
    for (Layer layer : attn::kLayers) CHECK(attn::parse_layer(attn::layer_name(layer)) == layer);
    CHECK(attn::layer_name(Layer::restricted_self_attention) == "restricted_self_attention");
    const std::string message = invalid_argument_of([] { attn::parse_layer("cnn"); });
    CHECK(contains(message, "'cnn'"));
    CHECK(contains(message, "dilated_convolution"));

    const auto& table = attn::symbolic_table();
    REQUIRE(table.size() == attn::kLayers.size());
    for (std::size_t i = 0; i < table.size(); ++i) CHECK(table[i].layer == attn::kLayers[i]);
    CHECK(table[0].complexity == "O(k n d^2)");
    CHECK(table[0].maximum_path_length == "O(n/k)");
    CHECK(table[1].maximum_path_length == "O(log_k(n))");
    CHECK(table[2].complexity == "O(n d^2)");
    CHECK(table[2].sequential_operations == "O(n)");
    CHECK(table[2].maximum_path_length == "O(n)");
    CHECK(table[3].complexity == "O(n^2 d)");
    CHECK(table[3].sequential_operations == "O(1)");
    CHECK(table[3].maximum_path_length == "O(1)");
    CHECK(table[4].complexity == "O(r n d)");
    CHECK(table[4].maximum_path_length == "O(n/r)");
}

TEST_CASE("complexity: multiply-adds for n = 8, d = 4, k = 3, r = 2") {
    const LayerSizes s = sizes(8, 4, 3, 2);
    CHECK(attn::multiply_adds(Layer::convolution, s) == 384);          // 8 * 3 * 4^2
    CHECK(attn::multiply_adds(Layer::dilated_convolution, s) == 384);  // same taps, spread out
    CHECK(attn::multiply_adds(Layer::recurrent, s) == 256);            // 2 * 8 * 4^2
    CHECK(attn::multiply_adds(Layer::self_attention, s) == 512);       // 2 * 8^2 * 4
    // r = 2: windows [i-1, i+1]; the 6 inner queries see 3 keys, the 2 ends 2: p = 22.
    // Closed form: S(1) = 1*2/2 + 1*(8-1-1) = 7, p = 8 + 7 + 7 = 22. 2 * 4 * 22 = 176.
    CHECK(attn::multiply_adds(Layer::restricted_self_attention, s) == 176);

    SUBCASE("projections add 4 n d^2 = 4 * 8 * 16 = 512 to the attention rows only") {
        const LayerSizes p = sizes(8, 4, 3, 2, true);
        CHECK(attn::multiply_adds(Layer::self_attention, p) == 512 + 512);
        CHECK(attn::multiply_adds(Layer::restricted_self_attention, p) == 176 + 512);
        CHECK(attn::multiply_adds(Layer::convolution, p) == 384);
        CHECK(attn::multiply_adds(Layer::recurrent, p) == 256);
    }
    SUBCASE("odd r = 3: windows [i-1, i+2], p = 3+4+4+4+4+4+3+2 = 28") {
        // S(1) = 7, S(2) = 2*3/2 + 2*(8-1-2) = 13, p = 8 + 7 + 13 = 28; 2 * 4 * 28 = 224.
        CHECK(attn::multiply_adds(Layer::restricted_self_attention, sizes(8, 4, 3, 3)) == 224);
    }
    SUBCASE("r >= 2(n-1) is full attention, r = 2(n-1)-1 misses one pair") {
        CHECK(attn::multiply_adds(Layer::restricted_self_attention, sizes(8, 4, 3, 14)) == 512);
        CHECK(attn::multiply_adds(Layer::restricted_self_attention, sizes(8, 4, 3, 1000)) == 512);
        // r = 13: query 7 sees [1, 7], key 0 is missing: p = 63, 2 * 4 * 63 = 504.
        CHECK(attn::multiply_adds(Layer::restricted_self_attention, sizes(8, 4, 3, 13)) == 504);
    }
    SUBCASE("r = 0 attends only to itself: p = n") {
        CHECK(attn::multiply_adds(Layer::restricted_self_attention, sizes(8, 4, 3, 0)) == 64);
    }
}

TEST_CASE("complexity: restricted pair count equals a brute-force count") {
    for (u64 n : {1, 2, 3, 7, 16}) {
        for (u64 r : {0, 1, 2, 3, 4, 5, 9, 30, 31, 32, 100}) {
            u64 pairs = 0;
            for (u64 i = 0; i < n; ++i)
                for (u64 j = 0; j < n; ++j) {
                    const bool left = j <= i && i - j <= r / 2;
                    const bool right = j >= i && j - i <= r - r / 2;
                    pairs += (left || right) ? 1 : 0;
                }
            CAPTURE(n);
            CAPTURE(r);
            CHECK(attn::multiply_adds(Layer::restricted_self_attention, sizes(n, 1, 3, r)) ==
                  2 * pairs);
            CHECK(attn::activation_floats(Layer::restricted_self_attention, sizes(n, 1, 3, r)) ==
                  pairs + n);
        }
    }
}

TEST_CASE("complexity: sequential steps, path lengths and activations for n = 8") {
    const LayerSizes s = sizes(8, 4, 3, 2);
    CHECK(attn::sequential_steps(Layer::convolution, s) == 1);
    CHECK(attn::sequential_steps(Layer::dilated_convolution, s) == 1);
    CHECK(attn::sequential_steps(Layer::recurrent, s) == 8);
    CHECK(attn::sequential_steps(Layer::self_attention, s) == 1);
    CHECK(attn::sequential_steps(Layer::restricted_self_attention, s) == 1);

    CHECK(attn::maximum_path_length(Layer::convolution, s) == 4);          // ceil(7 / 2)
    CHECK(attn::maximum_path_length(Layer::dilated_convolution, s) == 2);  // 3^1 < 8 <= 3^2
    CHECK(attn::maximum_path_length(Layer::recurrent, s) == 7);            // h_1 -> ... -> h_8
    CHECK(attn::maximum_path_length(Layer::self_attention, s) == 1);
    CHECK(attn::maximum_path_length(Layer::restricted_self_attention, s) == 4);  // ceil(7 / 2)
    CHECK(attn::maximum_path_length(Layer::restricted_self_attention, sizes(8, 4, 3, 3)) ==
          3);  // ceil(7 / 3)

    CHECK(attn::activation_floats(Layer::convolution, s) == 32);                     // n d
    CHECK(attn::activation_floats(Layer::recurrent, s) == 32);                       // n d
    CHECK(attn::activation_floats(Layer::self_attention, s) == 64 + 32);             // n^2 + n d
    CHECK(attn::activation_floats(Layer::restricted_self_attention, s) == 22 + 32);  // p + n d
    const LayerSizes p = sizes(8, 4, 3, 2, true);  // + 4 n d = 128
    CHECK(attn::activation_floats(Layer::self_attention, p) == 96 + 128);
    CHECK(attn::activation_floats(Layer::restricted_self_attention, p) == 54 + 128);
    CHECK(attn::activation_floats(Layer::convolution, p) == 32);

    const attn::LayerCounts c = attn::layer_counts(Layer::recurrent, s);
    CHECK(c.multiply_adds == 256);
    CHECK(c.sequential_steps == 8);
    CHECK(c.path_length == 7);
    CHECK(c.activation_floats == 32);
}

TEST_CASE("complexity: the chapter's figure, n = 5 and k = 3, needs two convolution layers") {
    // x1 and x5 share the receptive field (1 + 2 * 2 = 5 wide) of a two-layer CNN.
    CHECK(attn::maximum_path_length(Layer::convolution, sizes(5, 1, 3)) == 2);
    CHECK(attn::maximum_path_length(Layer::convolution, sizes(6, 1, 3)) == 3);
    CHECK(attn::maximum_path_length(Layer::convolution, sizes(100, 1, 4)) == 33);  // ceil(99/3)
}

TEST_CASE("complexity: dilated path is the least L with k^L >= n") {
    CHECK(attn::maximum_path_length(Layer::dilated_convolution, sizes(9, 1, 3)) == 2);   // 9 = 3^2
    CHECK(attn::maximum_path_length(Layer::dilated_convolution, sizes(10, 1, 3)) == 3);  // 27
    CHECK(attn::maximum_path_length(Layer::dilated_convolution, sizes(2, 1, 2)) == 1);
    CHECK(attn::maximum_path_length(Layer::dilated_convolution, sizes(1024, 1, 2)) == 10);
    CHECK(attn::maximum_path_length(Layer::dilated_convolution, sizes(1025, 1, 2)) == 11);
    CHECK(attn::maximum_path_length(Layer::dilated_convolution, sizes(kMax, 1, 2)) == 64);
    // k^1 = 2^63 < n and k^2 overflows 64 bits, so 2 layers, without overflowing.
    const u64 k = u64{1} << 63;
    CHECK(attn::maximum_path_length(Layer::dilated_convolution, sizes(kMax, 1, k)) == 2);
}

TEST_CASE("complexity: edge cases n = 1, k = 1, k >= n, r = 0, r >= n") {
    SUBCASE("n = 1: no pair of positions, path 0; one step; counts still exact") {
        for (Layer layer : attn::kLayers) {
            CAPTURE(attn::layer_name(layer));
            CHECK(attn::maximum_path_length(layer, sizes(1, 4, 3, 2)) == 0);
            CHECK(attn::maximum_path_length(layer, sizes(1, 4, 1, 0)) == 0);
            CHECK(attn::sequential_steps(layer, sizes(1, 4)) == 1);
        }
        CHECK(attn::multiply_adds(Layer::convolution, sizes(1, 4, 3)) == 48);  // 3 * 16, 2 taps pad
        CHECK(attn::multiply_adds(Layer::recurrent, sizes(1, 4)) == 32);       // 2 * 16
        CHECK(attn::multiply_adds(Layer::self_attention, sizes(1, 4)) == 8);   // 2 * 1 * 4
        CHECK(attn::multiply_adds(Layer::restricted_self_attention, sizes(1, 4, 3, 9)) == 8);
    }
    SUBCASE("k = 1 is pointwise and never connects two positions") {
        CHECK(attn::multiply_adds(Layer::convolution, sizes(8, 4, 1)) == 128);  // 8 * 16
        CHECK_FALSE(attn::maximum_path_length(Layer::convolution, sizes(2, 4, 1)).has_value());
        CHECK_FALSE(
            attn::maximum_path_length(Layer::dilated_convolution, sizes(8, 4, 1)).has_value());
    }
    SUBCASE("k >= n: one layer connects everything, padded taps are still counted") {
        CHECK(attn::maximum_path_length(Layer::convolution, sizes(4, 2, 4)) == 1);
        CHECK(attn::maximum_path_length(Layer::convolution, sizes(4, 2, 7)) == 1);
        CHECK(attn::maximum_path_length(Layer::dilated_convolution, sizes(4, 2, 7)) == 1);
        CHECK(attn::multiply_adds(Layer::convolution, sizes(4, 2, 7)) == 112);  // 4 * 7 * 4
    }
    SUBCASE("r = 0 never connects; r >= n - 1 connects in one layer") {
        CHECK_FALSE(attn::maximum_path_length(Layer::restricted_self_attention, sizes(2, 1, 3, 0))
                        .has_value());
        CHECK(attn::maximum_path_length(Layer::restricted_self_attention, sizes(4, 1, 3, 3)) == 1);
        CHECK(attn::maximum_path_length(Layer::restricted_self_attention, sizes(4, 1, 3, 5)) == 1);
    }
    SUBCASE("zero sizes are rejected, naming the size") {
        CHECK(contains(
            invalid_argument_of([] { attn::multiply_adds(Layer::convolution, sizes(0, 4)); }),
            "n must be"));
        CHECK(contains(
            invalid_argument_of([] { attn::activation_floats(Layer::recurrent, sizes(4, 0)); }),
            "d must be"));
        CHECK(contains(invalid_argument_of(
                           [] { attn::maximum_path_length(Layer::convolution, sizes(4, 4, 0)); }),
                       "k must be"));
    }
}

TEST_CASE("complexity: counts that do not fit in 64 bits throw std::overflow_error") {
    const u64 two32 = u64{1} << 32;
    CHECK_THROWS_AS(attn::multiply_adds(Layer::convolution, sizes(two32, u64{1} << 16)),
                    std::overflow_error);
    CHECK_THROWS_AS(attn::multiply_adds(Layer::self_attention, sizes(two32, 1)),
                    std::overflow_error);  // 2 * 2^64
    CHECK_THROWS_AS(attn::activation_floats(Layer::self_attention, sizes(two32, 1)),
                    std::overflow_error);  // n^2 = 2^64
    CHECK_THROWS_AS(attn::multiply_adds(Layer::restricted_self_attention, sizes(kMax, 2, 3, 2)),
                    std::overflow_error);
    CHECK_THROWS_AS(attn::multiply_adds(Layer::recurrent, sizes(u64{1} << 63, 1)),
                    std::overflow_error);  // 2 * 2^63 * 1^2 = 2^64
    // Just below the limit: 2 * (2^31)^2 * 1 = 2^63 fits.
    CHECK(attn::multiply_adds(Layer::self_attention, sizes(u64{1} << 31, 1)) == u64{1} << 63);
    CHECK_THROWS_AS(attn::multiply_adds(Layer::self_attention, sizes(u64{1} << 31, 2)),
                    std::overflow_error);
    // A huge n with a small window: 2 * 1 * (3n - 2) fits for n = 2^60.
    CHECK(attn::multiply_adds(Layer::restricted_self_attention, sizes(u64{1} << 60, 1, 3, 2)) ==
          2 * (3 * (u64{1} << 60) - 2));
}

TEST_CASE("complexity: attention crossovers are exact") {
    CHECK(attn::attention_crossover(Layer::recurrent, 64, 3) == 65);    // n > d
    CHECK(attn::attention_crossover(Layer::convolution, 64, 3) == 97);  // n > 3 * 64 / 2
    CHECK(attn::attention_crossover(Layer::convolution, 5, 3) == 8);    // n > 7.5
    CHECK(attn::attention_crossover(Layer::dilated_convolution, 5, 3) == 8);
    CHECK(attn::attention_crossover(Layer::convolution, 5, 1) == 3);          // n > 2.5
    CHECK(attn::attention_crossover(Layer::recurrent, 10, 3, true) == 1);     // 4 n d^2 > 2 n d^2
    CHECK(attn::attention_crossover(Layer::convolution, 10, 6, true) == 11);  // n > (6-4)*10/2
    CHECK(attn::attention_crossover(Layer::convolution, 10, 4, true) == 1);

    // The definition itself: at the crossover attention costs more, one token before it does not.
    for (bool projections : {false, true})
        for (u64 d : {1, 2, 7, 64, 100})
            for (u64 k : {1, 2, 3, 5, 9})
                for (Layer other : {Layer::recurrent, Layer::convolution}) {
                    const u64 n = attn::attention_crossover(other, d, k, projections);
                    CAPTURE(d);
                    CAPTURE(k);
                    CAPTURE(projections);
                    CAPTURE(attn::layer_name(other));
                    const LayerSizes at = sizes(n, d, k, 2, projections);
                    CHECK(attn::multiply_adds(Layer::self_attention, at) >
                          attn::multiply_adds(other, at));
                    if (n > 1) {
                        const LayerSizes before = sizes(n - 1, d, k, 2, projections);
                        CHECK(attn::multiply_adds(Layer::self_attention, before) <=
                              attn::multiply_adds(other, before));
                    }
                }

    CHECK_THROWS_AS(attn::attention_crossover(Layer::self_attention, 4, 3), std::invalid_argument);
    CHECK_THROWS_AS(attn::attention_crossover(Layer::recurrent, 0, 3), std::invalid_argument);
    CHECK_THROWS_AS(attn::attention_crossover(Layer::convolution, kMax, 3), std::overflow_error);
}

TEST_CASE("complexity: fit_exponent recovers exact power laws") {
    std::vector<double> xs, square, inverse, linear;
    for (double x = 16; x <= 65536; x *= 2) {
        xs.push_back(x);
        square.push_back(3.0 * x * x);
        inverse.push_back(5.0 / std::pow(x, 1.5));
        linear.push_back(0.25 * x);
    }
    CHECK(attn::fit_exponent(xs, square) == doctest::Approx(2.0).epsilon(1e-12));
    CHECK(attn::fit_exponent(xs, inverse) == doctest::Approx(-1.5).epsilon(1e-12));
    CHECK(attn::fit_exponent(xs, linear) == doctest::Approx(1.0).epsilon(1e-12));
    const std::vector<double> two_x = {2.0, 8.0}, two_y = {1.0, 2.0};  // log 2 / log 4
    CHECK(attn::fit_exponent(two_x, two_y) == doctest::Approx(0.5).epsilon(1e-12));

    const std::vector<double> one = {1.0}, bad = {1.0, -2.0}, same = {3.0, 3.0};
    const std::vector<double> with_nan = {1.0, std::nan("")};
    CHECK(contains(invalid_argument_of([&] { attn::fit_exponent(one, one); }), "at least 2"));
    CHECK(contains(invalid_argument_of([&] { attn::fit_exponent(xs, two_y); }), "y values"));
    CHECK(contains(invalid_argument_of([&] { attn::fit_exponent(two_x, bad); }), "point 1"));
    CHECK(contains(invalid_argument_of([&] { attn::fit_exponent(with_nan, two_y); }), "point 1"));
    CHECK(contains(invalid_argument_of([&] { attn::fit_exponent(same, two_y); }), "all x"));
}
