#include "attn/positions/float32_angles.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/positions/reference.hpp"
#include "io/npy.hpp"

using attn_test::Quad;

namespace {

// The recipe written out in the test: float32 exponent and division, the power from
// expq(e logq(base)) rounded once, sin/cos of the float angle in quad rounded once.
float reference(std::int64_t i, std::size_t c, std::size_t d, double base) {
    const std::size_t j = c / 2;
    const float e = float(2 * j) / float(d);
    const float p =
        static_cast<float>(expq(static_cast<Quad>(e) * logq(static_cast<Quad>(float(base)))));
    const float a = float(i) / p;
    return static_cast<float>(c % 2 == 0 ? sinq(static_cast<Quad>(a)) : cosq(static_cast<Quad>(a)));
}

}  // namespace

TEST_CASE("float32_angles: every value is the correctly rounded float32 recipe") {
    for (std::size_t d : {32u, 128u, 7u})
        for (double base : {10000.0, 500.0}) {
            const attn::positions::Float32AngleEncoder enc(d, base);
            const std::int64_t first = d == 7 ? 16000000 : 0;
            const std::size_t n = 1000;
            std::vector<double> rows(n * d);
            enc.fill(first, n, rows.data());
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t c = 0; c < d; ++c)
                    wrong +=
                        float(rows[i * d + c]) != reference(first + std::int64_t(i), c, d, base);
            INFO("d " << d << ", base " << base);
            CHECK(wrong == 0);
        }
}

TEST_CASE("float32_angles: allclose to the book's PyTorch P (60 x 32 and 1000 x 32)") {
    for (const std::string file : {"book_P_60x32_float32.npy", "book_P_1000x32_float32.npy"}) {
        const auto book = attn::io::read_npy(attn_test::data_dir() + "/d2l/" + file);
        REQUIRE(book.shape.size() == 2);
        const std::size_t n = book.shape[0], d = book.shape[1];
        const attn::positions::Float32AngleEncoder enc(d);
        std::vector<double> P(n * d);
        enc.fill(0, n, P.data());
        std::size_t not_close = 0, equal = 0;
        double worst = 0;
        for (std::size_t k = 0; k < n * d; ++k) {
            const double a = P[k], b = book.values[k];
            not_close += !(std::fabs(a - b) <= 1e-8 + 1e-5 * std::fabs(b));  // numpy.allclose
            equal += a == b;
            worst = std::max(worst, std::fabs(a - b));
        }
        INFO(file << ": worst |P - book| " << worst << ", equal " << equal << " of " << n * d);
        CHECK(not_close == 0);
        CHECK(equal > n * d * 9 / 10);  // torch's float32 sin/cos are faithful, mostly rounded
    }
}

TEST_CASE("float32_angles: the columns, the powers and bad parameters") {
    const attn::positions::Float32AngleEncoder inter(5),
        split(5, 10000.0, attn::positions::Layout::split);
    std::vector<double> a(3 * 5), b(3 * 5);
    inter.fill(10, 3, a.data());
    split.fill(10, 3, b.data());
    for (std::size_t k = 0; k < 3; ++k) {
        CHECK(a[k * 5 + 0] == b[k * 5 + 0]);
        CHECK(a[k * 5 + 1] == b[k * 5 + 3]);
        CHECK(a[k * 5 + 2] == b[k * 5 + 1]);
        CHECK(a[k * 5 + 4] == b[k * 5 + 2]);  // odd d: the last column is a sine
    }
    CHECK(inter.power(0) == 1.0f);
    CHECK(attn::positions::Float32AngleEncoder(4).power(1) == 100.0f);  // 10000^0.5 exactly
    CHECK(inter.angle(3, 0) == 3.0f);
    CHECK_THROWS_AS(attn::positions::Float32AngleEncoder(0), std::invalid_argument);
    CHECK_THROWS_AS(attn::positions::Float32AngleEncoder(4, 1.0), std::invalid_argument);
    CHECK_THROWS_AS(attn::positions::Float32AngleEncoder(4, 1e300), std::invalid_argument);
}
