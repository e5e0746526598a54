// attn::forward with identity weights (q = k = v = x'): softmax(x' x'^T / sqrt(d)) x' against
// a reference in long double, x' = x[p] (+ P), on both paths, with and without a causal mask.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "attn/attention/layer.hpp"

namespace {

using attn::AttentionPath;
using attn::positions::Scheme;
using LD = long double;

constexpr std::size_t kN = 7, kD = 6;

// softmax(x' x'^T / sqrt(d)) x', (n, d), keys j > i hidden when causal
std::vector<LD> reference(const std::vector<double>& x, const std::vector<std::size_t>& p,
                          bool sinusoidal, bool causal) {
    std::vector<LD> xp(kN * kD), out(kN * kD, 0);
    for (std::size_t i = 0; i < kN; ++i)
        for (std::size_t k = 0; k < kD; ++k) {
            xp[i * kD + k] = x[(p.empty() ? i : p[i]) * kD + k];
            const LD w = std::pow(10000.0L, -LD(2 * (k / 2)) / kD);  // interleaved P
            if (sinusoidal) xp[i * kD + k] += k % 2 ? std::cos(LD(i) * w) : std::sin(LD(i) * w);
        }
    for (std::size_t i = 0; i < kN; ++i) {
        std::vector<LD> s(kN, -std::numeric_limits<LD>::infinity());
        LD top = s[0], sum = 0;
        for (std::size_t j = 0; j <= (causal ? i : kN - 1); ++j) {
            s[j] = 0;
            for (std::size_t k = 0; k < kD; ++k) s[j] += xp[i * kD + k] * xp[j * kD + k];
            s[j] /= std::sqrt(LD(kD));
            top = std::max(top, s[j]);
        }
        for (LD& e : s) sum += e = std::exp(e - top);
        for (std::size_t j = 0; j < kN; ++j)
            for (std::size_t k = 0; k < kD; ++k) out[i * kD + k] += s[j] / sum * xp[j * kD + k];
    }
    return out;
}

}  // namespace

TEST_CASE("forward: identity weights attend over the rows, softmax(x x^T / sqrt(d)) x") {
    std::mt19937 gen(5);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    std::vector<double> x(kN * kD);
    for (double& e : x) e = u(gen);
    attn::LayerWeights<double> w;
    w.identity = true;
    const std::vector<std::size_t> reversed = {6, 5, 4, 3, 2, 1, 0};
    for (const AttentionPath path : {AttentionPath::direct, AttentionPath::tiled})
        for (const bool sinusoidal : {false, true})
            for (const bool causal : {false, true}) {
                attn::positions::SchemeConfig config;
                config.scheme = sinusoidal ? Scheme::sinusoidal : Scheme::none;
                config.layout = attn::positions::Layout::interleaved;
                config.hidden_size = kD;
                const attn::positions::PositionScheme<double> scheme(config, kN);
                attn::LayerInput<double> in;
                in.x = {x.data(), kN, kD, kD};
                in.permutation = sinusoidal ? reversed : std::vector<std::size_t>{};
                attn::LayerOptions o;
                o.path = path;
                o.mask.causal = causal;
                const attn::LayerResult<double> r = attn::forward(in, w, scheme, o);
                const std::vector<LD> ref = reference(x, in.permutation, sinusoidal, causal);
                REQUIRE(r.output.shape(0) == kN);
                REQUIRE(r.output.shape(1) == kD);
                REQUIRE(r.queries.size() == 1);
                LD worst = 0;
                for (std::size_t e = 0; e < kN * kD; ++e)
                    worst = std::max(worst, std::fabs(LD(r.output.data()[e]) - ref[e]));
                CHECK(worst < 1e-13L);
                if (path == AttentionPath::direct) CHECK(r.weights.size() == 1);
            }
}

TEST_CASE("forward: identity weights take x, not given projections") {
    std::vector<double> q(kN * kD, 0.5);
    attn::LayerWeights<double> w;
    w.identity = true;
    attn::LayerInput<double> in;
    in.q = in.k = in.v = {{q.data(), kN, kD, kD}};
    CHECK_THROWS_AS(attn::forward(in, w, attn::positions::PositionScheme<double>{}, {}),
                    std::invalid_argument);
}
