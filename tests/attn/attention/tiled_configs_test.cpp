// Every configuration tests/bench/kernel_bench.cpp times, at a small n, against the direct
// path (attn::scaled_dot_product_attention): d = 64 and 128, causal and not, 1 and 2 threads,
// one head and 32 query heads over 8 key/value heads (query head h reads key/value head
// h / 4, the heads of a group computed together by tiled_attention_group), on every
// instruction set this CPU has. n = 300 spans two key tiles and several
// query tiles, so causal runs skip whole key tiles above the diagonal.
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attn/attention/reference.hpp"
#include "attn/attention/tiled.hpp"
#include "runtime/parallel.hpp"
#include "support/approx.hpp"

namespace {

using Matrix = xt::xtensor<float, 2>;

Matrix uniform(std::size_t rows, std::size_t cols, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(-2, 2);
    Matrix m = xt::empty<float>({rows, cols});
    for (auto& x : m) x = static_cast<float>(dist(gen));
    return m;
}

attn::MatrixRef<float> view(const Matrix& m) {
    return {m.data(), m.shape(0), m.shape(1), m.shape(1)};
}

}  // namespace

TEST_CASE("tiled attention agrees with the direct path in every benchmarked configuration") {
    const std::size_t n = 300;
    std::vector<std::string> kernels;
    for (const char* name : {"portable", "avx2", "avx512"})
        if (attn::select_tiled_kernel(name)) kernels.push_back(name);
    for (std::size_t d : {64, 128})
        for (auto [heads, kv_heads] : {std::pair<std::size_t, std::size_t>{1, 1}, {32, 8}})
            for (bool causal : {false, true}) {
                std::vector<Matrix> k, v;
                for (std::size_t g = 0; g < kv_heads; ++g) {
                    k.push_back(uniform(n, d, unsigned(100 + 2 * g)));
                    v.push_back(uniform(n, d, unsigned(101 + 2 * g)));
                }
                attn::MaskOptions mask;
                mask.causal = causal;
                attn::TiledOptions options;
                options.causal = causal;
                const std::size_t group = heads / kv_heads;
                for (std::size_t g = 0; g < kv_heads; ++g) {
                    std::vector<Matrix> q, direct;
                    for (std::size_t h = g * group; h < (g + 1) * group; ++h) {
                        q.push_back(uniform(n, d, unsigned(h + 1)));
                        direct.push_back(
                            attn::scaled_dot_product_attention(q.back(), k[g], v[g], mask).context);
                    }
                    std::vector<attn::MatrixRef<float>> qs;
                    for (const Matrix& m : q) qs.push_back(view(m));
                    for (const std::string& name : kernels) {
                        // The portable kernels are slow: the first group suffices.
                        if (name == "portable" && g > 0) continue;
                        REQUIRE(attn::select_tiled_kernel(name));
                        for (std::size_t threads : {1, 2}) {
                            attn::set_thread_limit(threads);
                            // The group's heads together (tiled_attention_group), and the first
                            // alone (tiled_attention): the same bits.
                            std::vector<Matrix> got(group, xt::zeros<float>({n, d}));
                            std::vector<float*> outs;
                            for (Matrix& m : got) outs.push_back(m.data());
                            attn::tiled_attention_group(qs, view(k[g]), view(v[g]), outs, d,
                                                        options);
                            Matrix alone = xt::zeros<float>({n, d});
                            attn::tiled_attention(qs[0], view(k[g]), view(v[g]), alone.data(), d,
                                                  options);
                            INFO(name, " d ", d, " heads ", heads, "/", kv_heads, " group ", g,
                                 " causal ", causal, " threads ", threads);
                            CHECK(alone == got[0]);
                            for (std::size_t h = 0; h < group; ++h)
                                attn::test::require_allclose(got[h], direct[h], 0, 2e-6, "context");
                        }
                    }
                }
            }
    attn::set_thread_limit(0);
    attn::select_tiled_kernel("auto");
}

TEST_CASE("tiled_attention_group rejects no heads, heads of different shapes, a missing output") {
    const Matrix a = uniform(8, 4, 1), b = uniform(9, 4, 2), k = uniform(8, 4, 3);
    Matrix out = xt::zeros<float>({8, 4});
    const std::vector<float*> one{out.data()}, two{out.data(), out.data()};
    CHECK_THROWS_WITH_AS(attn::tiled_attention_group<float>({}, view(k), view(k), {}, 4),
                         "tiled attention: no query heads", std::invalid_argument);
    CHECK_THROWS_WITH_AS(
        attn::tiled_attention_group<float>({view(a), view(b)}, view(k), view(k), two, 4),
        "tiled attention: the query heads differ in shape", std::invalid_argument);
    CHECK_THROWS_WITH_AS(
        attn::tiled_attention_group<float>({view(a), view(a)}, view(k), view(k), one, 4),
        "tiled attention: not one output per query head", std::invalid_argument);
}

TEST_CASE("tiled_attention_group by row blocks of whole tiles: the same bits as one call") {
    const std::size_t n = 300, d = 64;
    const Matrix q0 = uniform(n, d, 1), q1 = uniform(n, d, 2), k = uniform(n, d, 3),
                 v = uniform(n, d, 4);
    const std::vector<attn::MatrixRef<float>> qs{view(q0), view(q1)};
    attn::TiledOptions options;
    options.causal = true;
    Matrix whole = xt::zeros<float>({n, 2 * d}), blocks = xt::zeros<float>({n, 2 * d});
    attn::tiled_attention_group(qs, view(k), view(v), {whole.data(), whole.data() + d}, 2 * d,
                                options);
    const std::size_t step = attn::tiled_tile_rows<float>(n);
    REQUIRE(step < n);
    for (std::size_t i = 0; i < n; i += step)
        attn::tiled_attention_group(qs, view(k), view(v), {blocks.data(), blocks.data() + d}, 2 * d,
                                    options, {}, i, std::min(step, n - i));
    CHECK(whole == blocks);
    CHECK(xt::amax(xt::abs(whole))() > 0.0f);
    CHECK_THROWS_WITH_AS(
        attn::tiled_attention_group(qs, view(k), view(v), {blocks.data(), blocks.data() + d}, 2 * d,
                                    options, {}, 200, 101),
        "tiled attention: context rows beyond Q", std::invalid_argument);
}
