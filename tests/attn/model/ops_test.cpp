#include "attn/model/ops.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <vector>

using attn::model::Activation;
using attn::model::Matrix;

namespace {
// A deterministic spread of values in [-scale, scale): no two rows alike.
Matrix<float> spread(std::size_t n, std::size_t d, float scale) {
    Matrix<float> x = Matrix<float>::from_shape({n, d});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j)
            x(i, j) = scale * static_cast<float>(std::sin(0.37 * double(i * d + j) + 0.1 * i));
    return x;
}
}  // namespace

TEST_CASE("layer_norm: 1..11 has mean 6 and variance 10, weight and bias apply per column") {
    const std::size_t d = 11;  // not a multiple of the 8 partial sums: the tail counts
    Matrix<float> x = Matrix<float>::from_shape({2, d});
    std::vector<float> w(d), b(d);
    for (std::size_t j = 0; j < d; ++j) {
        x(0, j) = float(j + 1);
        x(1, j) = 1000.0f + float(j + 1);  // the same row shifted: the same result
        w[j] = 0.5f + float(j);
        b[j] = -float(j) / 4;
    }
    const double eps = 1e-5;
    for (const float* bias :
         {static_cast<const float*>(nullptr), static_cast<const float*>(b.data())}) {
        const Matrix<float> y = attn::model::layer_norm(x, w.data(), bias, eps);
        for (std::size_t i = 0; i < 2; ++i)
            for (std::size_t j = 0; j < d; ++j) {
                const double expect =
                    (double(j + 1) - 6) / std::sqrt(10 + eps) * w[j] + (bias ? bias[j] : 0.0);
                CHECK(y(i, j) == doctest::Approx(expect).epsilon(1e-6));
            }
    }
}

TEST_CASE("layer_norm: GPT-2's width within a few float ulps of a long double reference") {
    const std::size_t n = 5, d = 768;
    const Matrix<float> x = spread(n, d, 3.0f);
    std::vector<float> w(d), b(d);
    for (std::size_t j = 0; j < d; ++j) w[j] = 1.0f + float(j % 7) / 8, b[j] = float(j % 5) / 16;
    const Matrix<float> y = attn::model::layer_norm(x, w.data(), b.data(), 1e-5);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        long double mean = 0, var = 0;
        for (std::size_t j = 0; j < d; ++j) mean += x(i, j);
        mean /= d;
        for (std::size_t j = 0; j < d; ++j) var += (x(i, j) - mean) * (x(i, j) - mean);
        var /= d;
        for (std::size_t j = 0; j < d; ++j) {
            const long double e = (x(i, j) - mean) / std::sqrt(var + 1e-5L) * w[j] + b[j];
            worst = std::max(worst, double(std::fabs(y(i, j) - e)));
        }
    }
    CHECK(worst < 4e-6);  // |y| up to about 4: a few ulps
    CHECK(worst > 0);     // float results, not the reference itself
}

TEST_CASE("activate: gelu_tanh is 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))") {
    const std::size_t n = 2500;  // past one block of 1,024 and not a multiple of a vector
    Matrix<float> x = Matrix<float>::from_shape({1, n});
    for (std::size_t i = 0; i < n; ++i) x(0, i) = -8.0f + 16.0f * float(i) / float(n);
    const Matrix<float> before = x;
    attn::model::activate(x, Activation::gelu_tanh);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const long double v = before(0, i);
        const long double e =
            0.5L * v * (1 + std::tanh(std::sqrt(2 / M_PIl) * (v + 0.044715L * v * v * v)));
        worst = std::max(worst, double(std::fabs(x(0, i) - e) / std::max(1.0L, std::fabs(e))));
    }
    CHECK(worst < 1e-6);
    CHECK(x(0, 0) == doctest::Approx(0.0).epsilon(1e-9));     // gelu(-8) = -0 to 1e-18
    CHECK(x(0, n - 1) == doctest::Approx(before(0, n - 1)));  // gelu(x) = x for large x
}

TEST_CASE("matvec: y = A x row by row, a tall matrix as the LM head's") {
    const float a[6] = {1, 2, 3, 4, 5, 6}, v[2] = {10, -1};
    float y[3] = {};
    attn::model::matvec(a, 3, 2, v, y);
    CHECK(y[0] == 8);
    CHECK(y[1] == 26);
    CHECK(y[2] == 44);
    const std::size_t rows = 5003, cols = 96;
    const Matrix<float> m = spread(rows, cols, 1.0f), x = spread(1, cols, 2.0f);
    std::vector<float> out(rows);
    attn::model::matvec(m.data(), rows, cols, x.data(), out.data());
    for (std::size_t r = 0; r < rows; r += 97) {
        double e = 0;
        for (std::size_t j = 0; j < cols; ++j) e += double(m(r, j)) * x(0, j);
        CHECK(out[r] == doctest::Approx(e).epsilon(1e-5));
    }
}
