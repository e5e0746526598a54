// The lens's streamed reduction (LensScan) against the whole softmax of the same logits, the
// vocabulary cut into blocks of several sizes and given out of order; and value_weights against
// the sum of the heads' vectors themselves.
#include "attn/model/lens.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "attn/model/value_vectors.hpp"

namespace {

using attn::model::LensRows;
using attn::model::LensScan;

// p = softmax(logits[r]) over the whole row, in double (the definition)
std::vector<double> softmax(const std::vector<float>& logits, std::size_t r, std::size_t V) {
    std::vector<double> p(V);
    double m = -std::numeric_limits<double>::infinity(), sum = 0;
    for (std::size_t v = 0; v < V; ++v) m = std::max(m, double(logits[r * V + v]));
    for (std::size_t v = 0; v < V; ++v) sum += p[v] = std::exp(double(logits[r * V + v]) - m);
    for (double& x : p) x /= sum;
    return p;
}

}  // namespace

TEST_CASE("LensScan: blocks of any size and order give the whole softmax's top K") {
    const std::size_t rows = 3, V = 1000, K = 7;
    std::mt19937 g(5);
    std::normal_distribution<float> normal(0.0f, 4.0f);
    std::vector<float> logits(rows * V);
    for (float& x : logits) x = normal(g);
    logits[1 * V + 10] = logits[1 * V + 20] = 30.0f;  // a tie: the smaller id ranks first
    for (const std::size_t block : {std::size_t{1}, std::size_t{64}, std::size_t{333}, V}) {
        CAPTURE(block);
        const std::vector<std::int64_t> targets{5, 999, -1};
        LensScan scan(rows, K, V, targets);
        std::vector<std::size_t> starts;
        for (std::size_t v0 = 0; v0 < V; v0 += block) starts.push_back(v0);
        std::reverse(starts.begin(), starts.end());  // any order
        for (const std::size_t v0 : starts) {
            const std::size_t count = std::min(block, V - v0);
            std::vector<float> b(rows * count);  // (rows, count)
            for (std::size_t r = 0; r < rows; ++r)
                std::copy_n(&logits[r * V + v0], count, &b[r * count]);
            scan.add(b.data(), v0, count);
        }
        const LensRows l = scan.finish();
        REQUIRE(l.top == K);
        for (std::size_t r = 0; r < rows; ++r) {
            const std::vector<double> p = softmax(logits, r, V);
            std::vector<std::size_t> order(V);
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(),
                             [&p](std::size_t a, std::size_t b) { return p[a] > p[b]; });
            for (std::size_t k = 0; k < K; ++k) {
                CHECK(l.ids[r * K + k] == order[k]);
                CHECK(l.probabilities[r * K + k] == doctest::Approx(p[order[k]]).epsilon(1e-12));
            }
            if (targets[r] >= 0)
                CHECK(l.target[r] == doctest::Approx(p[std::size_t(targets[r])]).epsilon(1e-12));
            else
                CHECK(std::isnan(l.target[r]));
        }
        CHECK(l.ids[1 * K] == 10);
        CHECK(l.ids[1 * K + 1] == 20);
    }
}

TEST_CASE("value_weights: the norm of the heads' summed vectors, rows normalised") {
    // two query heads sharing one K/V head (grouped), hd 2, d 3, n 2
    const std::size_t n = 2, hd = 2, d = 3, H = 2;
    const std::vector<double> v{1, 2, -1, 0.5};                         // (n, hd)
    const std::vector<double> wo{1, 0, 2, 0, 1, -1, 3, 1, 0, 0, 2, 1};  // (H hd, d), in_out
    attn::Projection<double> out;
    out.weight = {wo.data(), H * hd, d, d};
    const attn::model::ValueVectors f =
        attn::model::value_vectors<double>({{v.data(), n, hd, hd}}, H, out);
    const std::vector<double> a0{1, 0, 0.25, 0.75}, a1{1, 0, 0.5, 0.5};  // (n, n) per head
    const std::vector<double> vw = attn::model::value_weights<double>(f, {a0.data(), a1.data()});
    // f_h(x_j) = v[j] wo[h hd .. (h + 1) hd)
    const auto fh = [&](std::size_t h, std::size_t j, std::size_t c) {
        return v[j * hd] * wo[(h * hd) * d + c] + v[j * hd + 1] * wo[(h * hd + 1) * d + c];
    };
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> norm(n);
        for (std::size_t j = 0; j < n; ++j) {
            double s = 0;
            for (std::size_t c = 0; c < d; ++c) {
                const double x = a0[i * n + j] * fh(0, j, c) + a1[i * n + j] * fh(1, j, c);
                s += x * x;
            }
            norm[j] = std::sqrt(s);
        }
        for (std::size_t j = 0; j < n; ++j) {
            CHECK(vw[i * n + j] == doctest::Approx(norm[j] / (norm[0] + norm[1])).epsilon(1e-14));
            double s = 0;
            for (std::size_t c = 0; c < d; ++c) s += fh(1, j, c) * fh(1, j, c);
            CHECK(f.norm(j, 1) == doctest::Approx(std::sqrt(s)).epsilon(1e-14));
        }
    }
}
