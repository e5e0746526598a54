// Every configuration tests/bench/kernel_bench.cpp times, at a small n, against the direct
// path (attn::scaled_dot_product_attention): d = 64 and 128, causal and not, 1 and 2 threads,
// one head and 32 query heads over 8 key/value heads (query head h reads key/value head
// h / 4, the heads of a group computed together by tiled_attention_group), on every
// instruction set this CPU has. n = 300 spans two key tiles and several
// query tiles, so causal runs skip whole key tiles above the diagonal. The same for the biases
// it times (ALiBi and T5, made by positions::PositionScheme as attn::forward makes them), and
// the schemes kernel.sh times in the whole process (rope in both layouts, alibi, t5) through
// attn::forward on both paths.
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attn/attention/layer.hpp"
#include "attn/attention/reference.hpp"
#include "attn/attention/tiled.hpp"
#include "attn/positions/scheme.hpp"
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

using attn::positions::Scheme;

// A scheme for n positions and `heads` heads: rope (layout, head_dim d), alibi, or t5 with
// a drawn table of 32 bidirectional buckets up to distance 128 (kernel_bench's).
attn::positions::PositionScheme<float> scheme(Scheme s, std::size_t n, std::size_t d,
                                              std::size_t heads,
                                              attn::positions::Layout layout = {}) {
    attn::positions::SchemeConfig c;
    c.scheme = s;
    c.n_heads = heads;
    c.layout = layout;
    c.rope.d = d;
    if (s == Scheme::t5) {
        c.t5_table = xt::xtensor<double, 2>::from_shape({32, heads});
        const Matrix t = uniform(32, heads, 77);
        std::copy(t.begin(), t.end(), c.t5_table.begin());
    }
    return {c, n};
}

// The kernels this CPU can run, among portable, avx2 and avx512 (selecting one to find out).
std::vector<std::string> available_kernels() {
    std::vector<std::string> kernels;
    for (const char* name : {"portable", "avx2", "avx512"})
        if (attn::select_tiled_kernel(name)) kernels.push_back(name);
    return kernels;
}

}  // namespace

TEST_CASE("tiled attention agrees with the direct path in every benchmarked configuration") {
    const std::size_t n = 300;
    const std::vector<std::string> kernels = available_kernels();
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
    const std::size_t step = attn::TiledAttention<float>(view(q0), view(k), view(v)).tile_rows();
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

TEST_CASE("tiled attention with ALiBi and T5 biases agrees with the direct path as benchmarked") {
    const std::size_t n = 300;
    const std::vector<std::string> kernels = available_kernels();
    for (std::size_t d : {64, 128})
        for (Scheme s : {Scheme::alibi, Scheme::t5})
            for (bool causal : {false, true}) {
                // kernel_bench's head: ALiBi's head 3 of 8 (slope 1/16), T5's head 0.
                const auto pos = scheme(s, n, d, 8);
                const attn::AttentionBias<float> bias = pos.bias(s == Scheme::alibi ? 3 : 0);
                const Matrix q = uniform(n, d, 1), k = uniform(n, d, 2), v = uniform(n, d, 3);
                attn::MaskOptions mask;
                mask.causal = causal;
                attn::ScoreOptions<float> score;
                score.bias = bias;
                const Matrix direct =
                    attn::scaled_dot_product_attention(q, k, v, mask, score).context;
                attn::TiledOptions options;
                options.causal = causal;
                for (const std::string& name : kernels) {
                    REQUIRE(attn::select_tiled_kernel(name));
                    for (std::size_t threads : {1, 2}) {
                        attn::set_thread_limit(threads);
                        INFO(name, " d ", d, std::string(s == Scheme::alibi ? " alibi" : " t5"),
                             " causal ", causal, " threads ", threads);
                        attn::test::require_allclose(attn::tiled_attention(q, k, v, options, bias),
                                                     direct, 1e-5, 4e-6, "context");
                    }
                }
            }
    attn::set_thread_limit(0);
    attn::select_tiled_kernel("auto");
}

TEST_CASE("forward: rope, alibi and t5 on the tiled path agree with the direct one at d 64, 128") {
    // Given q, k, v of 4 query heads over 2 key/value heads (rope and none go through the
    // grouped kernel, the per-head biases head by head); 1 and 2 threads.
    using attn::positions::Layout;
    const std::size_t n = 300, H = 4, G = 2;
    for (std::size_t d : {64, 128}) {
        std::vector<Matrix> q, k, v;
        for (std::size_t h = 0; h < H; ++h) q.push_back(uniform(n, d, unsigned(10 + h)));
        for (std::size_t g = 0; g < G; ++g) {
            k.push_back(uniform(n, d, unsigned(20 + g)));
            v.push_back(uniform(n, d, unsigned(30 + g)));
        }
        attn::LayerInput<float> in;
        for (const Matrix& m : q) in.q.push_back(view(m));
        for (const Matrix& m : k) in.k.push_back(view(m));
        for (const Matrix& m : v) in.v.push_back(view(m));
        for (auto [s, layout] : {std::pair{Scheme::none, Layout::split},
                                 {Scheme::rope, Layout::split},
                                 {Scheme::rope, Layout::interleaved},
                                 {Scheme::alibi, Layout::split},
                                 {Scheme::t5, Layout::split}})
            for (bool causal : {false, true}) {
                const auto pos = scheme(s, n, d, H, layout);
                attn::LayerOptions o;
                o.mask.causal = causal;
                const Matrix direct = attn::forward(in, {}, pos, o).output;
                o.path = attn::AttentionPath::tiled;
                for (std::size_t threads : {1, 2}) {
                    attn::set_thread_limit(threads);
                    INFO("d ", d, " scheme ", int(s), " layout ", int(layout), " causal ", causal,
                         " threads ", threads);
                    attn::test::require_allclose(attn::forward(in, {}, pos, o).output, direct, 1e-5,
                                                 4e-6, "output");
                }
            }
    }
    attn::set_thread_limit(0);
}
