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

namespace {

using attn::Layer;
using attn::LayerSizes;
using u64 = std::uint64_t;

constexpr u64 kMax = std::numeric_limits<u64>::max();

LayerSizes sizes(u64 n, u64 d, u64 k = 3, u64 r = 2, bool projections = false) {
    return LayerSizes{n, d, k, r, projections};
}

// The message of the std::invalid_argument that f throws ("" if it throws nothing).
std::string invalid_argument_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
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
    CHECK(attn::kSymbolicColumns[3] == "maximum_path_length");
    CHECK(attn::kNumericColumns[5] == "multiply_adds");
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

TEST_CASE("complexity: parse_sweep accepts ranges and lists") {
    using V = std::vector<u64>;
    SUBCASE("multiplicative, stop included when reached") {
        const attn::Sweep s = attn::parse_sweep("n=16:65536:x2");
        CHECK(s.variable == "n");
        REQUIRE(s.values.size() == 13);  // 2^4 .. 2^16
        CHECK(s.values.front() == 16);
        CHECK(s.values.back() == 65536);
        CHECK(attn::parse_sweep("n=16:100:x2").values == V{16, 32, 64});
        CHECK(attn::parse_sweep("d=3:81:x3").values == V{3, 9, 27, 81});
    }
    SUBCASE("additive") {
        CHECK(attn::parse_sweep("d=8:32:+8").values == V{8, 16, 24, 32});
        CHECK(attn::parse_sweep("k=1:6:+2").values == V{1, 3, 5});
        CHECK(attn::parse_sweep("r=5:5:+1").values == V{5});
    }
    SUBCASE("plain lists keep their order") {
        CHECK(attn::parse_sweep("n=16,32,64").values == V{16, 32, 64});
        CHECK(attn::parse_sweep("k=7,3").values == V{7, 3});
        CHECK(attn::parse_sweep("k=5").values == V{5});
    }
    SUBCASE("steps that would overflow end the range") {
        const attn::Sweep s = attn::parse_sweep("n=1:18446744073709551615:x2");
        REQUIRE(s.values.size() == 64);
        CHECK(s.values.back() == u64{1} << 63);
        CHECK(attn::parse_sweep("n=18446744073709551614:18446744073709551615:+5").values ==
              V{kMax - 1});
    }
    SUBCASE("exactly max_points is fine") {
        CHECK(attn::parse_sweep("n=1:10000:+1").values.size() == 10000);
        CHECK(attn::parse_sweep("n=1:5:+1", 5).values.size() == 5);
    }
}

TEST_CASE("complexity: parse_sweep rejects bad specs and names the problem") {
    const auto problem = [](std::string spec, std::size_t max_points = 10000) {
        return invalid_argument_of([&] { attn::parse_sweep(spec, max_points); });
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

// ---------------------------------------------------------------------------------------
// Kernels against direct loops in double, and measurement on tiny sizes.

namespace {

using Matrix = xt::xtensor<float, 2>;

// Deterministic small values: M(i, j) = sin(seed + 0.7 i + 1.3 j).
Matrix filled(std::size_t rows, std::size_t cols, double seed) {
    Matrix M({rows, cols});
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j)
            M(i, j) = float(std::sin(seed + 0.7 * double(i) + 1.3 * double(j)));
    return M;
}

// max |got - want| over all entries; shapes must agree.
double max_abs_diff(const Matrix& got, const std::vector<std::vector<double>>& want) {
    REQUIRE(got.shape(0) == want.size());
    double worst = 0.0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        REQUIRE(got.shape(1) == want[i].size());
        for (std::size_t j = 0; j < want[i].size(); ++j)
            worst = std::max(worst, std::abs(double(got(i, j)) - want[i][j]));
    }
    return worst;
}

// softmax(Q K^T / sqrt(d)) V over the keys j with -left <= j - i <= right, in double.
std::vector<std::vector<double>> attention_reference(const Matrix& Q, const Matrix& K,
                                                     const Matrix& V, std::int64_t left,
                                                     std::int64_t right) {
    const std::size_t n = Q.shape(0), d = Q.shape(1), m = K.shape(0), dv = V.shape(1);
    std::vector<std::vector<double>> Y(n, std::vector<double>(dv, 0.0));
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> w(m, 0.0);
        std::vector<bool> in(m, false);
        double max = -INFINITY;
        for (std::size_t j = 0; j < m; ++j) {
            const std::int64_t off = std::int64_t(j) - std::int64_t(i);
            if (off < -left || off > right) continue;
            in[j] = true;
            for (std::size_t c = 0; c < d; ++c) w[j] += double(Q(i, c)) * double(K(j, c));
            w[j] /= std::sqrt(double(d));
            max = std::max(max, w[j]);
        }
        double sum = 0.0;
        for (std::size_t j = 0; j < m; ++j) sum += in[j] ? (w[j] = std::exp(w[j] - max)) : 0.0;
        for (std::size_t j = 0; j < m; ++j)
            if (in[j])
                for (std::size_t c = 0; c < dv; ++c) Y[i][c] += w[j] / sum * double(V(j, c));
    }
    return Y;
}

}  // namespace

TEST_CASE("complexity kernels: im2col convolution equals the direct sum") {
    const std::size_t n = 6, d = 3, d_out = 2;
    const Matrix X = filled(n, d, 0.1);
    for (std::size_t k : {1, 2, 3, 4, 7})
        for (std::size_t dilation : {1, 2, 3}) {
            const Matrix W = filled(k * d, d_out, 2.0);
            // Y[i][o] = sum_t sum_c X[i - floor((k-1) dil / 2) + t dil][c] W[t d + c][o]
            const auto pad = std::int64_t((k - 1) * dilation / 2);
            std::vector<std::vector<double>> want(n, std::vector<double>(d_out, 0.0));
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t t = 0; t < k; ++t) {
                    const std::int64_t src = std::int64_t(i) - pad + std::int64_t(t * dilation);
                    if (src < 0 || src >= std::int64_t(n)) continue;
                    for (std::size_t c = 0; c < d; ++c)
                        for (std::size_t o = 0; o < d_out; ++o)
                            want[i][o] += double(X(std::size_t(src), c)) * double(W(t * d + c, o));
                }
            CAPTURE(k);
            CAPTURE(dilation);
            CHECK(max_abs_diff(attn::convolution_forward(X, W, k, dilation), want) < 1e-5);
        }
    CHECK_THROWS_AS(attn::convolution_forward(X, filled(5, 2, 0.0), 2), std::invalid_argument);
}

TEST_CASE("complexity kernels: recurrent steps equal h_t = tanh(W h_{t-1} + U x_t)") {
    const std::size_t n = 5, d = 4;
    const Matrix X = filled(n, d, 0.3), W = filled(d, d, 1.1), U = filled(d, d, 2.9);
    std::vector<std::vector<double>> want;
    std::vector<double> h(d, 0.0);
    for (std::size_t t = 0; t < n; ++t) {
        std::vector<double> next(d, 0.0);
        for (std::size_t i = 0; i < d; ++i) {
            double a = 0.0;
            for (std::size_t j = 0; j < d; ++j)
                a += double(W(i, j)) * h[j] + double(U(i, j)) * double(X(t, j));
            next[i] = std::tanh(a);
        }
        h = next;
        want.push_back(h);
    }
    CHECK(max_abs_diff(attn::recurrent_forward(X, W, U), want) < 1e-5);
    CHECK_THROWS_AS(attn::recurrent_forward(X, filled(3, 3, 0.0), U), std::invalid_argument);
}

TEST_CASE("complexity kernels: full and restricted attention equal the direct softmax") {
    const std::size_t n = 7, d = 3;
    const Matrix Q = filled(n, d, 0.5), K = filled(n, d, 1.7), V = filled(n, 2, 3.1);
    const std::int64_t all = std::int64_t(n);
    CHECK(max_abs_diff(attn::self_attention_forward(Q, K, V),
                       attention_reference(Q, K, V, all, all)) < 1e-5);
    SUBCASE("the same matrix as queries and keys (a SYRK-shaped product) is still (n, n)") {
        CHECK(max_abs_diff(attn::self_attention_forward(Q, Q, V),
                           attention_reference(Q, Q, V, all, all)) < 1e-5);
    }
    SUBCASE("windows [i - floor(r/2), i + ceil(r/2)]") {
        for (std::uint64_t r : {0, 1, 2, 3, 5, 11, 12, 100}) {
            const auto left = std::int64_t(r / 2), right = std::int64_t(r - r / 2);
            CAPTURE(r);
            CHECK(max_abs_diff(attn::restricted_attention_forward(Q, K, V, r),
                               attention_reference(Q, K, V, left, right)) < 1e-5);
        }
    }
    SUBCASE("r = 0 sees only itself: the output is V") {
        const Matrix Y = attn::restricted_attention_forward(Q, K, V, 0);
        for (std::size_t i = 0; i < n; ++i) CHECK(Y(i, 1) == V(i, 1));
    }
}

TEST_CASE("complexity: measure_layer runs every row on tiny sizes") {
    for (bool projections : {false, true})
        for (Layer layer : attn::kLayers) {
            for (const LayerSizes& s :
                 {sizes(8, 4, 3, 2, projections), sizes(1, 1, 1, 0, projections),
                  sizes(5, 3, 9, 7, projections)}) {
                CAPTURE(attn::layer_name(layer));
                CAPTURE(projections);
                CAPTURE(s.n);
                const attn::Measurement m = attn::measure_layer(layer, s, 3);
                CHECK(std::isfinite(m.seconds));
                CHECK(m.seconds > 0.0);
                CHECK(std::isfinite(m.gflops));
                CHECK(m.gflops >= 0.0);
                CHECK(m.multiply_adds == attn::multiply_adds(layer, s));
            }
        }
    CHECK(attn::measure_layer(Layer::self_attention, sizes(4, 2), 2).seconds > 0.0);  // even count

    CHECK(
        contains(invalid_argument_of([] { attn::measure_layer(Layer::recurrent, sizes(4, 4), 0); }),
                 "repeat"));
    // n^2 floats of scores alone: 65536^2 * 4 bytes = 16 GiB > 1 GiB.
    CHECK(contains(invalid_argument_of(
                       [] { attn::measure_layer(Layer::self_attention, sizes(65536, 64), 1); }),
                   "more than the limit"));
    CHECK(contains(invalid_argument_of(
                       [] { attn::measure_layer(Layer::convolution, sizes(u64{1} << 31, 1), 1); }),
                   "2^31-1"));
}

TEST_CASE("complexity: measurement_bytes is the working set measure_layer checks") {
    // self_attention, n = 4, d = 2: X, Q, K, V, output, projected output (6 n d = 48),
    // scores n^2 = 16, four d x d weights = 16: 80 floats = 320 bytes.
    CHECK(attn::measurement_bytes(Layer::self_attention, sizes(4, 2)) == 320);
    // convolution, n = 4, d = 2, k = 3: X and Y (2 n d = 16), cols n k d = 24, W (k d, d) = 12.
    CHECK(attn::measurement_bytes(Layer::convolution, sizes(4, 2)) == 4 * 52);
    // The limit compares with exactly this number.
    const u64 bytes = attn::measurement_bytes(Layer::recurrent, sizes(8, 4));
    CHECK(attn::measure_layer(Layer::recurrent, sizes(8, 4), 1, bytes).seconds > 0.0);
    CHECK(contains(invalid_argument_of(
                       [&] { attn::measure_layer(Layer::recurrent, sizes(8, 4), 1, bytes - 1); }),
                   "more than the limit"));
    CHECK_THROWS_AS(attn::measurement_bytes(Layer::self_attention, sizes(u64{1} << 40, 1)),
                    std::overflow_error);
}
