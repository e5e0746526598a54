// attn::forward, the attention layer, for every position scheme on both paths, against a
// reference written here in long double from the formulas of layer.hpp (projections, X + P,
// RoPE from base^(-2j/d), ALiBi's 2^(-8h/H), T5's table by bucket, masks, softmax, W_o).
// Prints the largest difference of each case, as llm.c's tests do.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"
#include "attn/attention/memory_plan.hpp"
#include "attn/attention/tiled.hpp"
#include "attn/positions/t5.hpp"
#include "runtime/parallel.hpp"

namespace {

using attn::AttentionPath;
using attn::positions::Scheme;
using LD = long double;
using Mat = std::vector<std::vector<LD>>;  // reference matrices, rows of long doubles

constexpr std::size_t kN = 9, kIn = 6, kH = 4, kG = 2, kDk = 4, kDv = 3, kOut = 5;

std::vector<double> draw(std::size_t count, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> v(count);
    for (double& x : v) x = u(gen);
    return v;
}

// Everything of one layer, in double (exact in float too: the values are rounded to float).
struct Fixture {
    std::vector<double> x = draw(kN * kIn, 1);
    std::vector<std::vector<double>> wq, wk, wv, bq, bk, bv;  // (d_in, d) each, (d,) biases
    std::vector<double> wo = draw(kH * kDv * kOut, 2), bo = draw(kOut, 3);
    xt::xtensor<double, 2> table = xt::xtensor<double, 2>::from_shape({8, kH});
    Fixture() {
        for (auto* v : {&x, &wo, &bo})
            for (double& e : *v) e = static_cast<float>(e);
        for (std::size_t h = 0; h < kH; ++h) {
            wq.push_back(rounded(draw(kIn * kDk, 10 + h)));
            bq.push_back(rounded(draw(kDk, 20 + h)));
        }
        for (std::size_t g = 0; g < kG; ++g) {
            wk.push_back(rounded(draw(kIn * kDk, 30 + g)));
            bk.push_back(rounded(draw(kDk, 40 + g)));
            wv.push_back(rounded(draw(kIn * kDv, 50 + g)));
            bv.push_back(rounded(draw(kDv, 60 + g)));
        }
        const auto t = draw(8 * kH, 70);
        std::copy(t.begin(), t.end(), table.begin());
    }
    static std::vector<double> rounded(std::vector<double> v) {
        for (double& e : v) e = static_cast<float>(e);
        return v;
    }
};

struct Case {
    std::string name;
    attn::positions::SchemeConfig config;
    attn::MaskOptions mask;
    std::optional<double> scale;
    std::vector<std::size_t> permutation;
};

// The layer in long double: output (n, d_out) and weights [H] (n, n).
struct Reference {
    Mat output;
    std::vector<Mat> weights;
};

Mat matmul(const Mat& a, const std::vector<double>& w, std::size_t cols,
           const std::vector<double>& b) {
    Mat out(a.size(), std::vector<LD>(cols, 0));
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t c = 0; c < cols; ++c) {
            LD s = b.empty() ? 0 : b[c];
            for (std::size_t k = 0; k < a[i].size(); ++k) s += a[i][k] * LD(w[k * cols + c]);
            out[i][c] = s;
        }
    return out;
}

void rope(Mat& m, const Case& c) {
    const std::size_t d = m[0].size(), h = d / 2;
    const bool split = c.config.layout == attn::positions::Layout::split;
    for (std::size_t i = 0; i < m.size(); ++i)
        for (std::size_t j = 0; j < h; ++j) {
            const LD angle =
                LD(c.config.start + i) * std::pow(LD(c.config.rope.base), -LD(2 * j) / d);
            const std::size_t a = split ? j : 2 * j, b = split ? j + h : 2 * j + 1;
            const LD x = m[i][a], y = m[i][b];
            m[i][a] = x * std::cos(angle) - y * std::sin(angle);
            m[i][b] = y * std::cos(angle) + x * std::sin(angle);
        }
}

Reference reference(const Fixture& f, const Case& c) {
    const Scheme s = c.config.scheme;
    Mat x(kN, std::vector<LD>(kIn));
    for (std::size_t i = 0; i < kN; ++i)
        for (std::size_t k = 0; k < kIn; ++k) {
            const std::size_t src = c.permutation.empty() ? i : c.permutation[i];
            x[i][k] = f.x[src * kIn + k];
            if (s == Scheme::sinusoidal) {  // interleaved [s0 c0 s1 c1 ...]
                const LD w = std::pow(LD(c.config.base), -LD(2 * (k / 2)) / kIn);
                x[i][k] += k % 2 ? std::cos(LD(i) * w) : std::sin(LD(i) * w);
            }
        }
    Reference r;
    Mat concat(kN);
    for (std::size_t h = 0; h < kH; ++h) {
        const std::size_t g = h / (kH / kG);
        Mat q = matmul(x, f.wq[h], kDk, f.bq[h]), k = matmul(x, f.wk[g], kDk, f.bk[g]),
            v = matmul(x, f.wv[g], kDv, f.bv[g]);
        if (s == Scheme::rope) rope(q, c), rope(k, c);
        Mat w(kN, std::vector<LD>(kN, 0));
        const LD slope = std::pow(LD(2), -LD(8) * LD(h + 1) / kH);
        for (std::size_t i = 0; i < kN; ++i) {
            std::vector<LD> sc(kN);
            std::vector<bool> hidden(kN);
            LD m = -std::numeric_limits<LD>::infinity();
            for (std::size_t j = 0; j < kN; ++j) {
                LD dot = 0;
                for (std::size_t a = 0; a < kDk; ++a) dot += q[i][a] * k[j][a];
                sc[j] = c.scale ? dot * LD(*c.scale) : dot / std::sqrt(LD(kDk));
                if (s == Scheme::alibi)
                    sc[j] += c.config.alibi == attn::positions::AlibiForm::distance
                                 ? -slope * std::fabs(LD(i) - LD(j))
                                 : slope * LD(j);
                if (s == Scheme::t5) {
                    const auto bucket = attn::positions::t5_bucket(
                        std::int64_t(j) - std::int64_t(i), c.config.buckets);
                    sc[j] += LD(f.table(static_cast<std::size_t>(bucket), h));
                }
                hidden[j] = (c.mask.causal && j > i) ||
                            (c.mask.valid_len && j >= *c.mask.valid_len) ||
                            (c.mask.sliding_window && j + *c.mask.sliding_window <= i);
                if (!hidden[j]) m = std::max(m, sc[j]);
            }
            LD sum = 0;
            for (std::size_t j = 0; j < kN; ++j) sum += hidden[j] ? 0 : std::exp(sc[j] - m);
            for (std::size_t j = 0; j < kN; ++j)
                w[i][j] = hidden[j] ? 0 : std::exp(sc[j] - m) / sum;
        }
        for (std::size_t i = 0; i < kN; ++i)
            for (std::size_t c2 = 0; c2 < kDv; ++c2) {
                LD z = 0;
                for (std::size_t j = 0; j < kN; ++j) z += w[i][j] * v[j][c2];
                concat[i].push_back(z);
            }
        r.weights.push_back(std::move(w));
    }
    r.output = matmul(concat, f.wo, kOut, f.bo);
    return r;
}

template <class T>
std::vector<T> as(const std::vector<double>& v) {
    return std::vector<T>(v.begin(), v.end());
}

// The layer through attn::forward on one path, compared with the reference.
template <class T>
void check(const Fixture& f, const Case& c, AttentionPath path, double tolerance) {
    const std::vector<T> x = as<T>(f.x), wo = as<T>(f.wo), bo = as<T>(f.bo);
    std::vector<std::vector<T>> held;
    const auto keep = [&](const std::vector<double>& v) {
        return held.emplace_back(as<T>(v)).data();
    };
    held.reserve(4 * kH + 8);
    attn::LayerWeights<T> w;
    for (std::size_t h = 0; h < kH; ++h)
        w.query.push_back(
            {{keep(f.wq[h]), kIn, kDk, kDk}, attn::WeightLayout::in_out, keep(f.bq[h])});
    for (std::size_t g = 0; g < kG; ++g) {
        w.key.push_back(
            {{keep(f.wk[g]), kIn, kDk, kDk}, attn::WeightLayout::in_out, keep(f.bk[g])});
        w.value.push_back(
            {{keep(f.wv[g]), kIn, kDv, kDv}, attn::WeightLayout::in_out, keep(f.bv[g])});
    }
    w.output = attn::Projection<T>{
        {wo.data(), kH * kDv, kOut, kOut}, attn::WeightLayout::in_out, bo.data()};
    attn::LayerInput<T> in;
    in.x = {x.data(), kN, kIn, kIn};
    in.permutation = c.permutation;
    attn::positions::SchemeConfig config = c.config;
    config.hidden_size = kIn;
    config.n_heads = kH;
    config.rope.d = kDk;
    if (config.scheme == Scheme::t5) config.t5_table = f.table;
    const attn::positions::PositionScheme<T> scheme(config, kN);
    attn::LayerOptions o;
    o.mask = c.mask;
    o.scale = c.scale;
    o.path = path;
    const attn::LayerResult<T> r = attn::forward(in, w, scheme, o);
    const Reference want = reference(f, c);

    double out_diff = 0, w_diff = 0;
    for (std::size_t i = 0; i < kN; ++i)
        for (std::size_t k = 0; k < kOut; ++k)
            out_diff =
                std::max(out_diff, double(std::fabs(LD(r.output(i, k)) - want.output[i][k])));
    std::vector<T> rows(kN * kN);
    for (std::size_t h = 0; h < kH; ++h) {
        attn::ScoreRows<T> sr;
        sr.weights = rows.data();
        sr.stride = kN;
        r.rows->rows(h, 0, kN, sr);
        for (std::size_t i = 0; i < kN; ++i)
            for (std::size_t j = 0; j < kN; ++j)
                w_diff = std::max(w_diff,
                                  double(std::fabs(LD(rows[i * kN + j]) - want.weights[h][i][j])));
    }
    std::printf("layer %-28s %-6s %-6s max |output - ref| %.3g  max |weights - ref| %.3g\n",
                c.name.c_str(), path == AttentionPath::direct ? "direct" : "tiled",
                sizeof(T) == 4 ? "float" : "double", out_diff, w_diff);
    CHECK(out_diff <= tolerance);
    CHECK(w_diff <= tolerance);
}

std::vector<Case> cases() {
    using attn::positions::AlibiForm;
    using attn::positions::Layout;
    std::vector<Case> v;
    v.push_back({"none", {}, {}, {}, {}});
    v.push_back({"none causal permuted", {}, {true, {}, {}, {}}, {}, {3, 1, 4, 0, 8, 2, 6, 5, 7}});
    Case sin{"sinusoidal valid_len 6", {}, {false, 6, {}, {}}, {}, {}};
    sin.config.scheme = Scheme::sinusoidal;
    sin.config.layout = Layout::interleaved;
    v.push_back(sin);
    for (Layout l : {Layout::split, Layout::interleaved}) {
        Case c{
            l == Layout::split ? "rope split causal" : "rope interleaved window 3", {}, {}, {}, {}};
        c.config.scheme = Scheme::rope;
        c.config.layout = l;
        c.config.rope.base = 100.0;
        if (l == Layout::split)
            c.mask.causal = true;
        else
            c.mask.sliding_window = 3, c.mask.causal = true;
        v.push_back(c);
    }
    for (AlibiForm form : {AlibiForm::distance, AlibiForm::key_position}) {
        Case c{form == AlibiForm::distance ? "alibi" : "alibi bloom causal", {}, {}, {}, {}};
        c.config.scheme = Scheme::alibi;
        c.config.alibi = form;
        c.mask.causal = form == AlibiForm::key_position;
        v.push_back(c);
    }
    Case t5{"t5 unscaled", {}, {}, 1.0, {}};
    t5.config.scheme = Scheme::t5;
    t5.config.buckets = {8, 16, true};
    v.push_back(t5);
    return v;
}

}  // namespace

TEST_CASE("forward: every scheme on both paths agrees with a long double reference") {
    const Fixture f;
    for (const Case& c : cases())
        for (AttentionPath path : {AttentionPath::direct, AttentionPath::tiled}) {
            check<double>(f, c, path, 1e-12);
            check<float>(f, c, path, 2e-5);
        }
}

TEST_CASE("forward: nn.Linear's (out, in) weights and given q, k, v give the same layer") {
    const Fixture f;
    const std::vector<double> x = f.x;
    attn::LayerWeights<double> in_out, out_in;
    std::vector<std::vector<double>> transposed;
    transposed.reserve(8);
    const auto t = [&](const std::vector<double>& w, std::size_t d) {
        auto& m = transposed.emplace_back(w.size());
        for (std::size_t k = 0; k < kIn; ++k)
            for (std::size_t c = 0; c < d; ++c) m[c * kIn + k] = w[k * d + c];
        return m.data();
    };
    for (std::size_t h = 0; h < kH; ++h) {
        in_out.query.push_back({{f.wq[h].data(), kIn, kDk, kDk}});
        out_in.query.push_back({{t(f.wq[h], kDk), kDk, kIn, kIn}, attn::WeightLayout::out_in});
    }
    for (std::size_t g = 0; g < kG; ++g) {
        in_out.key.push_back({{f.wk[g].data(), kIn, kDk, kDk}});
        in_out.value.push_back({{f.wv[g].data(), kIn, kDv, kDv}});
        out_in.key.push_back({{t(f.wk[g], kDk), kDk, kIn, kIn}, attn::WeightLayout::out_in});
        out_in.value.push_back({{t(f.wv[g], kDv), kDv, kIn, kIn}, attn::WeightLayout::out_in});
    }
    attn::LayerInput<double> in;
    in.x = {x.data(), kN, kIn, kIn};
    attn::positions::SchemeConfig config;
    config.scheme = Scheme::rope;
    config.rope.d = kDk;
    const attn::positions::PositionScheme<double> scheme(config, kN);
    for (AttentionPath path : {AttentionPath::direct, AttentionPath::tiled}) {
        attn::LayerOptions o;
        o.path = path;
        o.mask.causal = true;
        const auto a = attn::forward(in, in_out, scheme, o);
        const auto b = attn::forward(in, out_in, scheme, o);
        attn::LayerInput<double> given;
        for (const auto& m : a.queries) given.q.push_back({m.data(), kN, kDk, kDk});
        for (const auto& m : a.keys) given.k.push_back({m.data(), kN, kDk, kDk});
        for (const auto& m : a.values) given.v.push_back({m.data(), kN, kDv, kDv});
        const auto c = attn::forward(given, {}, scheme, o);
        double diff = 0;
        for (std::size_t i = 0; i < a.output.size(); ++i)
            diff = std::max({diff, std::fabs(a.output.data()[i] - b.output.data()[i]),
                             std::fabs(a.output.data()[i] - c.output.data()[i])});
        std::printf("layer out_in and given q/k/v, %s: max |diff| %.3g\n",
                    path == AttentionPath::direct ? "direct" : "tiled", diff);
        CHECK(diff <= 1e-14);
        CHECK(a.output.shape(1) == kH * kDv);  // no W_o: output = concat
    }
}

TEST_CASE("forward: refuses what is not a layer") {
    const Fixture f;
    attn::LayerWeights<double> w;
    attn::LayerInput<double> in;
    in.x = {f.x.data(), kN, kIn, kIn};
    const attn::positions::PositionScheme<double> none;
    CHECK_THROWS_AS(attn::forward(in, w, none, {}), std::invalid_argument);  // no heads
    for (std::size_t h = 0; h < 3; ++h) w.query.push_back({{f.wq[0].data(), kIn, kDk, kDk}});
    w.key.push_back({{f.wk[0].data(), kIn, kDk, kDk}});
    w.key.push_back({{f.wk[1].data(), kIn, kDk, kDk}});
    w.value = {w.key[0], w.key[1]};
    CHECK_THROWS_AS(attn::forward(in, w, none, {}), std::invalid_argument);  // 2 does not divide 3
    w.query.pop_back();
    in.permutation = {0, 1, 2, 3, 4, 5, 6, 7, 7};
    CHECK_THROWS_AS(attn::forward(in, w, none, {}), std::invalid_argument);
}

TEST_CASE("memory_plan: the direct path counts H x n x n matrices, the tiled one none") {
    attn::LayerShape s;
    s.n = 65536, s.d_in = 64, s.heads = 8, s.kv_heads = 8, s.d_k = 64, s.d_v = 64;
    s.scheme = Scheme::rope;
    attn::LayerOptions o;
    const auto direct = attn::memory_plan(s, o, 4);
    // 8 heads x 65536^2 x (4 matrices of 4 bytes + 1 mask byte)
    CHECK(direct.largest().bytes == 8ull * 65536 * 65536 * 17);
    o.path = AttentionPath::tiled;
    const auto tiled = attn::memory_plan(s, o, 4, 256);
    // q k v of 8 heads and q k rotated, concat, packed keys (V read in place: 64 is a multiple
    // of every vector width), 256 streamed rows; no x' (rope, unpermuted: x' is x)
    // and each thread's workspace (tiled_workspace's closed form: tiled_test)
    const std::uint64_t work = attn::thread_limit() * attn::tiled_workspace<float>(65536, 64, 1);
    const std::uint64_t want =
        65536ull * 4 * (8 * 64 * 3 + 16 * 64 + 8 * 64 + 64) + 256ull * 65536 * 20 + work * 4;
    CHECK(tiled.total() == want);
    s.permuted = true;  // x' = x[p], (n, d_in)
    CHECK(attn::memory_plan(s, o, 4, 256).total() == want + 65536ull * 4 * 64);
    s.permuted = false;
    // d_v = 65: the kernels' padded copy of V, 72 (AVX2's 8 floats) or 80 (AVX-512's 16) wide
    const std::size_t padded = attn::tiled_value_copy<float>(65);
    CHECK((padded == 72 || padded == 80));
    CHECK(attn::tiled_value_copy<double>(64) == 0);
    s.d_v = 65;
    // v (8 heads) and concat one column wider each, V's copy padded-wide, O padded-wide
    const std::uint64_t work65 = attn::thread_limit() * attn::tiled_workspace<float>(65536, 65, 1);
    CHECK(attn::memory_plan(s, o, 4, 256).total() ==
          want - work * 4 + work65 * 4 + 65536ull * 4 * (8 + 8 + padded));
}

TEST_CASE("forward: keep_unrotated false rotates q and k in place, same layer, planned smaller") {
    const Fixture f;
    attn::LayerWeights<double> w;
    for (std::size_t h = 0; h < kH; ++h) w.query.push_back({{f.wq[h].data(), kIn, kDk, kDk}});
    for (std::size_t g = 0; g < kG; ++g) {
        w.key.push_back({{f.wk[g].data(), kIn, kDk, kDk}});
        w.value.push_back({{f.wv[g].data(), kIn, kDv, kDv}});
    }
    attn::LayerInput<double> in;
    in.x = {f.x.data(), kN, kIn, kIn};
    attn::positions::SchemeConfig config;
    config.scheme = Scheme::rope;
    config.rope.d = kDk;
    const attn::positions::PositionScheme<double> scheme(config, kN);
    for (AttentionPath path : {AttentionPath::direct, AttentionPath::tiled}) {
        attn::LayerOptions o;
        o.path = path;
        const auto kept = attn::forward(in, w, scheme, o);
        o.keep_unrotated = false;
        const auto moved = attn::forward(in, w, scheme, o);
        REQUIRE(moved.queries.size() == kH);
        REQUIRE(moved.keys.size() == kG);
        CHECK(moved.queries[0].size() == 0);
        CHECK(moved.keys[0].size() == 0);
        CHECK(kept.queries[0].size() == kN * kDk);
        for (std::size_t h = 0; h < kH; ++h)
            CHECK(moved.rotated_queries[h] == kept.rotated_queries[h]);
        for (std::size_t g = 0; g < kG; ++g) CHECK(moved.rotated_keys[g] == kept.rotated_keys[g]);
        CHECK(moved.output == kept.output);
        // the plan leaves out n (H + G) d_k elements
        attn::LayerShape s;
        s.n = kN, s.d_in = kIn, s.heads = kH, s.kv_heads = kG, s.d_k = kDk, s.d_v = kDv;
        s.scheme = Scheme::rope;
        attn::LayerOptions keep;
        keep.path = path;
        CHECK(attn::memory_plan(s, keep, 8).total() - attn::memory_plan(s, o, 8).total() ==
              kN * (kH + kG) * kDk * 8);
    }
}
