// attn::tiled_attention and TiledAttention::rows against the direct path
// (attn::scaled_dot_product_attention, masked_softmax) and a double reference, for every
// instruction set this CPU has; the polynomial exp against expl; bit-identity across thread
// counts.
#include "attn/attention/tiled.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include "attn/attention/reference.hpp"
#include "runtime/parallel.hpp"
#include "support/approx.hpp"

namespace {

using attn::test::require_allclose;

template <class T>
using Matrix = xt::xtensor<T, 2>;

template <class T>
Matrix<T> uniform(std::size_t rows, std::size_t cols, unsigned seed, double lo = -1,
                  double hi = 1) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    Matrix<T> m = xt::empty<T>({rows, cols});
    for (auto& x : m) x = static_cast<T>(dist(gen));
    return m;
}

// The instruction sets to test: all this CPU supports; restores the automatic choice.
struct EachKernel {
    std::vector<std::string> names;
    EachKernel() {
        for (const char* n : {"portable", "avx2", "avx512"})
            if (attn::select_tiled_kernel(n)) names.push_back(n);
        attn::select_tiled_kernel("auto");
    }
};

struct ThreadLimit {
    explicit ThreadLimit(std::size_t n) { attn::set_thread_limit(n); }
    ~ThreadLimit() { attn::set_thread_limit(0); }
};

// The reference: masked_softmax(scale Q K^T + bias) V in double, from T inputs.
template <class T>
attn::AttentionResult<double> reference(const Matrix<T>& q, const Matrix<T>& k, const Matrix<T>& v,
                                        const attn::MaskOptions& mask, double slope = 0) {
    const std::size_t nq = q.shape(0), nk = k.shape(0), dk = q.shape(1), dv = v.shape(1);
    Matrix<double> s = xt::zeros<double>({nq, nk});
    for (std::size_t i = 0; i < nq; ++i)
        for (std::size_t j = 0; j < nk; ++j) {
            long double dot = 0;
            for (std::size_t c = 0; c < dk; ++c) dot += (long double)q(i, c) * k(j, c);
            s(i, j) = static_cast<double>(dot / std::sqrt((long double)dk)) -
                      slope * std::fabs(double(i) - double(j));
        }
    attn::AttentionResult<double> r;
    r.weights = attn::masked_softmax(s, attn::attention_mask(nq, nk, mask), mask.fill);
    r.context = xt::zeros<double>({nq, dv});
    for (std::size_t i = 0; i < nq; ++i)
        for (std::size_t c = 0; c < dv; ++c) {
            long double acc = 0;
            for (std::size_t j = 0; j < nk; ++j) acc += (long double)r.weights(i, j) * v(j, c);
            r.context(i, c) = static_cast<double>(acc);
        }
    r.scores = s;
    return r;
}

attn::TiledOptions tiled(const attn::MaskOptions& m) {
    attn::TiledOptions o;
    o.causal = m.causal;
    o.valid_len = m.valid_len;
    o.fill = m.fill;
    return o;
}

template <class T>
Matrix<T> weight_rows(const Matrix<T>& q, const Matrix<T>& k, const attn::TiledOptions& o,
                      const attn::AttentionBias<T>& bias = {}) {
    Matrix<T> w = xt::zeros<T>({q.shape(0), k.shape(0)});
    auto view = [](const Matrix<T>& m) {
        return attn::MatrixRef<T>{m.data(), m.shape(0), m.shape(1), m.shape(1)};
    };
    attn::TiledAttention<T> plan(view(q), view(k), {}, o, bias);
    // Two blocks, the first not a multiple of any tile height.
    const std::size_t half = q.shape(0) / 2 + 1 < q.shape(0) ? q.shape(0) / 2 + 1 : q.shape(0);
    attn::ScoreRows<T> out;
    out.weights = w.data();
    out.stride = k.shape(0);
    plan.rows(0, half, out);
    out.weights = w.data() + half * k.shape(0);
    plan.rows(half, q.shape(0) - half, out);
    return w;
}

struct Shape {
    std::size_t nq, nk, dk, dv;
};

const Shape shapes[] = {{1, 1, 1, 1},     {5, 7, 3, 2},       {7, 5, 4, 3},      {100, 130, 16, 24},
                        {97, 97, 33, 17}, {200, 300, 64, 64}, {300, 257, 64, 65}};

template <class T>
void against_direct(double tol) {
    for (const std::string& name : EachKernel().names) {
        REQUIRE(attn::select_tiled_kernel(name));
        unsigned seed = 1;
        for (const Shape& sh : shapes) {
            const Matrix<T> q = uniform<T>(sh.nq, sh.dk, seed++, -2, 2);
            const Matrix<T> k = uniform<T>(sh.nk, sh.dk, seed++, -2, 2);
            const Matrix<T> v = uniform<T>(sh.nk, sh.dv, seed++);
            std::vector<attn::MaskOptions> masks(7);
            masks[1].causal = true;
            masks[2].valid_len = 0;
            masks[3].valid_len = sh.nk / 2 + 1;
            masks[4].causal = true, masks[4].valid_len = sh.nk / 3;
            masks[5].valid_len = sh.nk + 5;
            masks[6].causal = true, masks[6].valid_len = 1, masks[6].fill = -1e6;
            for (const attn::MaskOptions& mask : masks) {
                CAPTURE(name);
                INFO("nq ", sh.nq, " nk ", sh.nk, " dk ", sh.dk, " dv ", sh.dv);
                CAPTURE(mask.causal);
                CAPTURE(mask.valid_len.value_or(999999));
                const auto direct = attn::scaled_dot_product_attention(q, k, v, mask);
                const Matrix<T> got = attn::tiled_attention(q, k, v, tiled(mask));
                require_allclose(got, direct.context, 0, tol, "context");
                require_allclose(weight_rows(q, k, tiled(mask)), direct.weights, 0, tol, "weights");
            }
        }
    }
    attn::select_tiled_kernel("auto");
}

}  // namespace

TEST_CASE("tiled exp is within 2 ulp of expl, 0 for -inf and below the normal range") {
    for (const std::string& name : EachKernel().names) {
        REQUIRE(attn::select_tiled_kernel(name));
        CAPTURE(name);
        std::vector<float> xf;
        std::vector<double> xd;
        for (int i = 0; i <= 200000; ++i) {
            xf.push_back(-87.0f + 175.0f * float(i) / 200000.0f);
            xd.push_back(-700.0 + 1400.0 * double(i) / 200000.0);
        }
        for (double x : {0.0, -1e-7, 1e-7, -0.34657359, 0.34657359, -1.0, -20.5}) {
            xf.push_back(static_cast<float>(x));
            xd.push_back(x);
        }
        std::vector<float> ef = xf;
        std::vector<double> ed = xd;
        attn::tiled_exp(ef.data(), ef.size());
        attn::tiled_exp(ed.data(), ed.size());
        double worst_f = 0, worst_d = 0;
        for (std::size_t i = 0; i < xf.size(); ++i) {
            const long double want = std::exp((long double)xf[i]);
            const double ulp = std::nextafter((float)want, INFINITY) - (float)want;
            worst_f = std::max(worst_f, double(std::fabs(ef[i] - want) / ulp));
        }
        for (std::size_t i = 0; i < xd.size(); ++i) {
            const long double want = std::exp((long double)xd[i]);
            const double ulp = std::nextafter((double)want, INFINITY) - (double)want;
            worst_d = std::max(worst_d, double(std::fabs(ed[i] - want) / ulp));
        }
        CAPTURE(worst_f);
        CAPTURE(worst_d);
        CHECK(worst_f <= 2.0);
        CHECK(worst_d <= 2.0);
        std::vector<float> special = {-INFINITY, -1000.0f, -87.5f, 0.0f};
        attn::tiled_exp(special.data(), special.size());
        CHECK(special[0] == 0.0f);
        CHECK(special[1] == 0.0f);
        CHECK(special[2] == 0.0f);
        CHECK(special[3] == 1.0f);
    }
    attn::select_tiled_kernel("auto");
}

TEST_CASE("tiled attention float32 matches the direct path within 2e-6, masks included") {
    against_direct<float>(2e-6);
}

TEST_CASE("tiled attention float64 matches the direct path within 1e-14, masks included") {
    against_direct<double>(1e-14);
}

// Scores that rise and fall by tens across key tiles: a row's reference is raised (and O and
// its sums rescaled by 2^(m_old - m)) on some tiles and kept, up to 2^8 below the max, on the
// others; rows of every sign of slope, causal and not, float and double.
template <class T>
void rising_scores(double tol) {
    const std::size_t nq = 130, nk = 700, d = 16;
    Matrix<T> q = xt::empty<T>({nq, d}), k = xt::empty<T>({nk, d});
    for (std::size_t i = 0; i < nq; ++i)
        for (std::size_t c = 0; c < d; ++c) q(i, c) = T((double(i) - 60) / 40 + 0.01 * double(c));
    for (std::size_t j = 0; j < nk; ++j)
        for (std::size_t c = 0; c < d; ++c)
            k(j, c) = T(6 * std::sin(double(j) / 45) + double(j) / 150 - 0.02 * double(c));
    const Matrix<T> v = uniform<T>(nk, 24, 7);
    for (const std::string& name : EachKernel().names) {
        REQUIRE(attn::select_tiled_kernel(name));
        for (bool causal : {false, true}) {
            CAPTURE(name);
            CAPTURE(causal);
            attn::MaskOptions mask;
            mask.causal = causal;
            const auto direct = attn::scaled_dot_product_attention(q, k, v, mask);
            // scaled scores up to 60: rows span far more than lazy = 8 (in log2 units)
            REQUIRE(xt::amax(direct.scores)() / 4 > 40);
            require_allclose(attn::tiled_attention(q, k, v, tiled(mask)), direct.context, 0, tol,
                             "context");
        }
    }
    attn::select_tiled_kernel("auto");
}

TEST_CASE("tiled attention: scores rising by far more than 2^8 across key tiles") {
    rising_scores<float>(2e-6);
    rising_scores<double>(1e-14);
}

TEST_CASE("tiled attention: ALiBi and a bias table are added to the scaled scores") {
    for (const std::string& name : EachKernel().names) {
        REQUIRE(attn::select_tiled_kernel(name));
        CAPTURE(name);
        const Matrix<double> q = uniform<double>(150, 40, 11), k = uniform<double>(170, 40, 12),
                             v = uniform<double>(170, 9, 13);
        attn::MaskOptions mask;
        mask.causal = true;
        const double slope = 0.0625;
        // A T5-like table: bias depends on j - i through a bucket; the reference adds it too.
        auto table = [](std::size_t i, std::size_t j) {
            const long d = long(j) - long(i);
            return d < -8 ? -1.5 : d < 0 ? 0.25 * double(d % 3) : 0.5;
        };
        attn::AttentionBias<double> bias;
        bias.alibi_slope = slope;
        bias.add = [&](std::size_t r0, std::size_t c0, std::size_t rows, std::size_t cols,
                       double* tile, std::size_t stride) {
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < cols; ++c)
                    tile[r * stride + c] += table(r0 + r, c0 + c);
        };
        attn::AttentionResult<double> want = reference(q, k, v, mask, slope);
        Matrix<double> s = want.scores;
        for (std::size_t i = 0; i < s.shape(0); ++i)
            for (std::size_t j = 0; j < s.shape(1); ++j) s(i, j) += table(i, j);
        want.weights = attn::masked_softmax(s, attn::attention_mask(150, 170, mask));
        Matrix<double> ctx = xt::zeros<double>({150, 9});
        for (std::size_t i = 0; i < 150; ++i)
            for (std::size_t c = 0; c < 9; ++c)
                for (std::size_t j = 0; j < 170; ++j) ctx(i, c) += want.weights(i, j) * v(j, c);
        require_allclose(attn::tiled_attention(q, k, v, tiled(mask), bias), ctx, 0, 1e-13,
                         "context");
        require_allclose(weight_rows(q, k, tiled(mask), bias), want.weights, 0, 1e-14, "weights");
    }
    attn::select_tiled_kernel("auto");
}

TEST_CASE("tiled attention: raw, scores, masked and weights rows; rows sum to 1, hidden rows 0") {
    const Matrix<float> q = uniform<float>(70, 8, 21), k = uniform<float>(90, 8, 22);
    attn::TiledOptions o;
    o.causal = true;
    o.valid_len = 40;
    o.scale = 0.5;
    Matrix<float> raw = xt::zeros<float>({70, 90}), sc = raw, masked = raw, w = raw;
    attn::TiledAttention<float> plan({q.data(), 70, 8, 8}, {k.data(), 90, 8, 8}, {}, o);
    plan.rows(0, 70, {raw.data(), sc.data(), masked.data(), w.data(), 90});
    Matrix<double> want_raw = xt::zeros<double>({70, 90});
    for (std::size_t i = 0; i < 70; ++i)
        for (std::size_t j = 0; j < 90; ++j)
            for (std::size_t c = 0; c < 8; ++c) want_raw(i, j) += double(q(i, c)) * k(j, c);
    require_allclose(raw, want_raw, 0, 1e-5, "raw");
    require_allclose(sc, 0.5 * want_raw, 0, 1e-5, "scores");
    for (std::size_t i = 0; i < 70; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < 90; ++j) {
            const bool hidden = j > i || j >= 40;
            CHECK((hidden ? masked(i, j) == -INFINITY : masked(i, j) == sc(i, j)));
            if (hidden) CHECK(w(i, j) == 0.0f);
            sum += w(i, j);
        }
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
    }
    attn::TiledOptions none;
    none.valid_len = 0;
    const Matrix<float> zero_rows = weight_rows(q, k, none);
    CHECK(xt::amax(xt::abs(zero_rows))() == 0.0f);
    const Matrix<float> v = uniform<float>(90, 5, 23);
    const Matrix<float> ctx = attn::tiled_attention(q, k, v, none);
    CHECK(xt::amax(xt::abs(ctx))() == 0.0f);
}

TEST_CASE("tiled attention is bit-identical for 1, 2 and 3 threads") {
    const Matrix<float> q = uniform<float>(1000, 64, 31), k = uniform<float>(1100, 64, 32),
                        v = uniform<float>(1100, 48, 33);
    for (bool causal : {false, true}) {
        attn::TiledOptions o;
        o.causal = causal;
        std::vector<Matrix<float>> ctx, w;
        for (std::size_t threads : {1, 2, 3}) {
            ThreadLimit limit(threads);
            ctx.push_back(attn::tiled_attention(q, k, v, o));
            w.push_back(weight_rows(q, k, o));
        }
        for (std::size_t t = 1; t < 3; ++t) {
            CHECK(std::memcmp(ctx[t].data(), ctx[0].data(), ctx[0].size() * sizeof(float)) == 0);
            CHECK(std::memcmp(w[t].data(), w[0].data(), w[0].size() * sizeof(float)) == 0);
        }
    }
}

TEST_CASE("tiled attention's context by blocks of query tiles is the whole context's bits") {
    const Matrix<float> q = uniform<float>(700, 32, 41), k = uniform<float>(650, 32, 42),
                        v = uniform<float>(650, 24, 43);
    for (bool causal : {false, true}) {
        attn::TiledOptions o;
        o.causal = causal;
        o.valid_len = 600;
        const auto view = [](const Matrix<float>& m) {
            return attn::MatrixRef<float>{m.data(), m.shape(0), m.shape(1), m.shape(1)};
        };
        const attn::TiledAttention<float> att(view(q), view(k), view(v), o);
        const Matrix<float> whole = attn::tiled_attention(q, k, v, o);
        Matrix<float> blocks = xt::zeros<float>({700, 24});
        const std::size_t step = 2 * att.tile_rows();
        for (std::size_t i = 0; i < 700; i += step)
            att.context(i, std::min<std::size_t>(step, 700 - i), blocks.data(), 24);
        CHECK(std::memcmp(blocks.data(), whole.data(), whole.size() * sizeof(float)) == 0);
        // Rows outside the block are not written.
        Matrix<float> one = xt::zeros<float>({700, 24});
        att.context(5, 3, one.data(), 24);
        CHECK(one(4, 0) == 0.0f);
        CHECK(one(8, 0) == 0.0f);
        CHECK(std::abs(one(6, 3) - whole(6, 3)) <= 1e-6f * std::abs(whole(6, 3)) + 1e-7f);
        CHECK_THROWS_AS(att.context(690, 20, one.data(), 24), std::invalid_argument);
    }
}

TEST_CASE("tiled attention's progress: every query tile's rows, from two threads, same bits") {
    const Matrix<float> q = uniform<float>(1000, 32, 51), k = uniform<float>(1000, 32, 52),
                        v = uniform<float>(1000, 16, 53);
    const auto view = [](const Matrix<float>& m) {
        return attn::MatrixRef<float>{m.data(), m.shape(0), m.shape(1), m.shape(1)};
    };
    for (bool causal : {false, true}) {
        ThreadLimit limit(2);
        std::atomic<std::size_t> rows{0}, calls{0};
        attn::TiledOptions o;
        o.causal = causal;
        o.progress = [&](std::size_t r) { rows += r, ++calls; };
        const attn::TiledAttention<float> att(view(q), view(k), view(v), o);
        Matrix<float> ctx = xt::zeros<float>({1000, 16});
        att.context(ctx.data(), 16);
        CHECK(rows == 1000);
        // 1000 rows in tiles of tile_rows(), the last 4 cut in quarters
        const std::size_t bq = att.tile_rows(), tiles = (1000 + bq - 1) / bq;
        CHECK(calls >= tiles);
        o.progress = nullptr;
        CHECK(std::memcmp(ctx.data(), attn::tiled_attention(q, k, v, o).data(),
                          ctx.size() * sizeof(float)) == 0);
        // a group of 3 query heads over one K/V head: 3 rows a query row
        rows = 0;
        o.progress = [&](std::size_t r) { rows += r; };
        std::vector<Matrix<float>> out(3, xt::zeros<float>({1000, 16}));
        attn::tiled_attention_group<float>({view(q), view(q), view(q)}, view(k), view(v),
                                           {out[0].data(), out[1].data(), out[2].data()}, 16, o);
        CHECK(rows == 3000);
    }
}

TEST_CASE("tiled_workspace: S and P of a tile, and O, m and l per head of a group") {
    // the kernels' tile: bq query rows (half below 16 bq, a quarter below 8 bq), bk keys, W
    // lanes
    struct Tile {
        const char* isa;
        std::size_t bq, bk, W;
    };
    for (const Tile t :
         {Tile{"avx512", 768, 128, 16}, Tile{"avx2", 384, 256, 8}, Tile{"portable", 256, 128, 8}}) {
        if (!attn::select_tiled_kernel(t.isa)) continue;
        const std::size_t dv_pad = (65 + t.W - 1) / t.W * t.W;
        for (std::size_t heads : {1, 4}) {
            CHECK(attn::tiled_workspace<float>(16 * t.bq, 65, heads) ==
                  t.bq * t.bk + heads * (t.bq * dv_pad + t.bq + t.bq * t.W));
            const std::size_t h = t.bq / 2, q = t.bq / 4;  // fewer than 16 tiles' rows, than 8
            CHECK(attn::tiled_workspace<float>(16 * t.bq - 1, 65, heads) ==
                  h * t.bk + heads * (h * dv_pad + h + h * t.W));
            CHECK(attn::tiled_workspace<float>(8 * t.bq - 1, 65, heads) ==
                  q * t.bk + heads * (q * dv_pad + q + q * t.W));
        }
    }
    attn::select_tiled_kernel("auto");
}

TEST_CASE("tiled attention float32 at n = 512 is within 1e-5 relative of a float64 reference") {
    const Matrix<float> q = uniform<float>(512, 64, 41, -3, 3),
                        k = uniform<float>(512, 64, 42, -3, 3), v = uniform<float>(512, 64, 43);
    attn::MaskOptions masks[2];
    masks[1].causal = true;
    const Matrix<double> wants[2] = {reference(q, k, v, masks[0]).context,
                                     reference(q, k, v, masks[1]).context};
    for (const std::string& name : EachKernel().names) {
        REQUIRE(attn::select_tiled_kernel(name));
        CAPTURE(name);
        for (int causal : {0, 1}) {
            const Matrix<double>& want = wants[causal];
            const Matrix<float> got = attn::tiled_attention(q, k, v, tiled(masks[causal]));
            const double err = xt::amax(xt::abs(xt::cast<double>(got) - want))();
            const double scale = xt::amax(xt::abs(want))();
            CAPTURE(err);
            CHECK(err / scale < 1e-5);
        }
    }
    attn::select_tiled_kernel("auto");
}

TEST_CASE("tiled attention rejects mismatched shapes") {
    const Matrix<float> q = uniform<float>(4, 3, 1), k = uniform<float>(5, 2, 2),
                        v = uniform<float>(5, 2, 3), v4 = uniform<float>(4, 2, 3);
    CHECK_THROWS_AS(attn::tiled_attention(q, k, v), std::invalid_argument);
    CHECK_THROWS_AS(attn::tiled_attention(k, k, v4), std::invalid_argument);
}

TEST_CASE("tiled attention on a head's column block of wider matrices (strided views)") {
    const std::size_t n = 130, heads = 3, d = 16;
    const Matrix<float> q = uniform<float>(n, heads * d, 51), k = uniform<float>(n, heads * d, 52),
                        v = uniform<float>(n, heads * d, 53);
    Matrix<float> out = xt::zeros<float>({n, heads * d});
    attn::TiledOptions o;
    o.causal = true;
    for (std::size_t h = 0; h < heads; ++h)
        attn::tiled_attention<float>(
            {q.data() + h * d, n, d, heads * d}, {k.data() + h * d, n, d, heads * d},
            {v.data() + h * d, n, d, heads * d}, out.data() + h * d, heads * d, o);
    attn::MaskOptions mask;
    mask.causal = true;
    for (std::size_t h = 0; h < heads; ++h) {
        auto block = [&](const Matrix<float>& m) {
            return Matrix<float>(xt::view(m, xt::all(), xt::range(h * d, (h + 1) * d)));
        };
        const auto direct = attn::scaled_dot_product_attention(block(q), block(k), block(v), mask);
        require_allclose(block(out), direct.context, 0, 2e-6, "context of a head");
    }
}

TEST_CASE("tiled attention float32 at n = 4096, d = 64 is within 1e-5 relative of float64") {
    // The float64 run (checked against the direct path above) on the same float32 inputs.
    const Matrix<float> q = uniform<float>(4096, 64, 61, -3, 3),
                        k = uniform<float>(4096, 64, 62, -3, 3), v = uniform<float>(4096, 64, 63);
    const Matrix<double> want = attn::tiled_attention(Matrix<double>(xt::cast<double>(q)),
                                                      Matrix<double>(xt::cast<double>(k)),
                                                      Matrix<double>(xt::cast<double>(v)));
    const Matrix<float> got = attn::tiled_attention(q, k, v);
    const double err = xt::amax(xt::abs(xt::cast<double>(got) - want))();
    CAPTURE(err);
    CHECK(err / xt::amax(xt::abs(want))() < 1e-5);
}

TEST_CASE_TEMPLATE("tiled: a NaN or inf in Q or K gives the direct path's NaN rows", T, float,
                   double) {
    // PyTorch's softmax of a row holding a NaN or +inf score is NaN throughout (a -inf score is
    // a weight of 0); the kernels' exp2 alone would give numbers. Q row 3 holds a NaN; K row 40
    // an inf, so q_i . k_40 is +inf or -inf by the sign of q_i's column 2: under a causal mask
    // rows 40.. see it, without one every row does.
    for (const std::string& name : EachKernel().names) {
        REQUIRE(attn::select_tiled_kernel(name));
        CAPTURE(name);
        Matrix<T> q = uniform<T>(70, 16, 11, -2, 2);
        Matrix<T> k = uniform<T>(70, 16, 12, -2, 2);
        const Matrix<T> v = uniform<T>(70, 8, 13);
        q(3, 5) = std::numeric_limits<T>::quiet_NaN();
        k(40, 2) = std::numeric_limits<T>::infinity();
        for (const bool causal : {true, false}) {
            CAPTURE(causal);
            attn::MaskOptions mask;
            mask.causal = causal;
            const auto direct = attn::scaled_dot_product_attention(q, k, v, mask);
            const Matrix<T> got = attn::tiled_attention(q, k, v, tiled(mask));
            const Matrix<T> w = weight_rows(q, k, tiled(mask));
            std::size_t nan_rows = 0;
            for (std::size_t i = 0; i < 70; ++i) {
                CAPTURE(i);
                const bool nan = std::isnan(direct.weights(i, 0));
                nan_rows += nan;
                // the direct path: +inf score -> NaN row, -inf -> 0, the others as before
                const bool plus = (causal ? i >= 40 : true) && q(i, 2) > 0;
                CHECK(nan == (i == 3 || plus));
                CHECK(std::isnan(w(i, 0)) == nan);
                CHECK(std::isnan(direct.context(i, 7)) == nan);
                CHECK(std::isnan(got(i, 0)) == nan);
                if (!nan) CHECK(std::abs(got(i, 7) - direct.context(i, 7)) < 1e-4);
            }
            CHECK(nan_rows > 2);
            CHECK(nan_rows < 60);
        }
    }
    attn::select_tiled_kernel("auto");
}
