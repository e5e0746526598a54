// positions::PositionScheme: each scheme as the functions of its own file give it (P, the
// rope rotation and angles, ALiBi's slopes in both forms, T5's table by bucket), and configs
// refused naming the Hugging Face key at fault.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/positions/alibi.hpp"
#include "attn/positions/scheme.hpp"
#include "attn/positions/sinusoidal.hpp"
#include "support/throws.hpp"

using attn::positions::Layout;
using attn::positions::Scheme;
using attn::positions::SchemeConfig;
using Scheme_ = attn::positions::PositionScheme<double>;
using attn::test::invalid_argument_of;

TEST_CASE("PositionScheme: sinusoidal adds P at positions start..") {
    SchemeConfig c;
    c.scheme = Scheme::sinusoidal;
    c.hidden_size = 6;
    c.start = 5;
    c.layout = Layout::interleaved;
    const Scheme_ s(c, 4);
    const auto p = attn::positions::positional_encoding(4, 6, 10000.0, 5, Layout::interleaved);
    std::vector<double> x(2 * 6, 1.0);
    s.add_positions(x.data(), 2, 2, 6);  // rows 2 and 3
    for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t k = 0; k < 6; ++k) CHECK(x[r * 6 + k] == 1.0 + p(2 + r, k));
    CHECK(s.positions_shape() == std::vector<std::size_t>{4, 6});
    CHECK(s.description() == "sinusoidal P (base 10000, interleaved)");
    CHECK_FALSE(s.rotates());
    CHECK_FALSE(s.biases());
}

TEST_CASE("PositionScheme: rope rotates rows as positions start + row0 + r") {
    SchemeConfig c;
    c.scheme = Scheme::rope;
    c.start = 3;
    c.rope.d = 4;
    c.rope.base = 100.0;
    for (Layout layout : {Layout::split, Layout::interleaved}) {
        c.layout = layout;
        const Scheme_ s(c, 8);
        const attn::positions::Rope rope(c.rope, 3, 8);
        std::vector<double> m(8 * 4), want(8 * 4);
        for (std::size_t i = 0; i < m.size(); ++i) m[i] = std::sin(double(i) + 0.5);
        rope.rotate_all(3, 1, 8, layout, m.data(), want.data());
        std::vector<double> got(m.begin() + 4 * 5, m.end());  // rows 5..7
        s.rotate(got.data(), 5, 3, 4);
        for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == want[4 * 5 + i]);
        std::vector<double> angles(8 * 2);
        s.positions_rows(0, 8, angles.data());
        CHECK(angles[2 * 7 + 1] == doctest::Approx(10.0 * 0.1));  // (3 + 7) * 100^(-1/2)
    }
    CHECK(Scheme_(c, 8).description() == "rope angles (base 100, interleaved, scaling default)");
}

TEST_CASE("PositionScheme: alibi as Press et al. and as BLOOM, t5 by bucket") {
    SchemeConfig c;
    c.scheme = Scheme::alibi;
    c.n_heads = 4;
    const Scheme_ press(c, 5);
    CHECK(press.bias(1).alibi_slope == attn::positions::alibi_slopes(4)[1]);
    CHECK(press.biases());
    std::vector<double> rows(5 * 5), want(5 * 5);
    press.positions_rows(5, 5, rows.data());  // head 1
    attn::positions::AlibiBias(4, 5).fill(5, 5, want.data());
    CHECK(rows == want);
    c.alibi = attn::positions::AlibiForm::key_position;
    const Scheme_ bloom(c, 5);
    bloom.positions_rows(5, 5, rows.data());
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 5; ++j) CHECK(rows[i * 5 + j] == 0.0625 * double(j));  // 2^-4 j

    SchemeConfig t;
    t.scheme = Scheme::t5;
    t.n_heads = 2;
    t.buckets = {8, 16, true};
    t.t5_table = xt::xtensor<double, 2>::from_shape({8, 2});
    for (std::size_t b = 0; b < 8; ++b) t.t5_table(b, 0) = 10.0 * b, t.t5_table(b, 1) = -1.0 * b;
    const Scheme_ t5(t, 6);
    CHECK(t5.biases());
    std::vector<double> bias(6 * 6);
    t5.positions_rows(6, 6, bias.data());  // head 1
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 6; ++j)
            CHECK(bias[i * 6 + j] == -double(attn::positions::t5_bucket(
                                         std::int64_t(j) - std::int64_t(i), t.buckets)));
    t.t5_table = xt::zeros<double>({8, 3});
    CHECK(invalid_argument_of([&] { Scheme_(t, 6); }).rfind("relative_attention_bias", 0) == 0);
    SchemeConfig r;
    r.scheme = Scheme::rope;
    r.rope.d = 3;
    CHECK(invalid_argument_of([&] { Scheme_(r, 6); }).rfind("d", 0) == 0);
}

TEST_CASE("PositionScheme: t5's table of offsets is t5_bucket's at every offset") {
    // The table fills each side's far offsets without t5_bucket once they reach its last
    // bucket: every offset checked, bidirectional and causal buckets, near and far n.
    for (const attn::positions::T5Buckets buckets : {attn::positions::T5Buckets{32, 128, true},
                                                     {32, 128, false},
                                                     {8, 16, true},
                                                     {16, 1000, true}})
        for (const std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(700)}) {
            SchemeConfig t;
            t.scheme = Scheme::t5;
            t.n_heads = 2;
            t.buckets = buckets;
            const auto B = static_cast<std::size_t>(buckets.num_buckets);
            t.t5_table = xt::xtensor<double, 2>::from_shape({B, 2});
            for (std::size_t b = 0; b < B; ++b)
                t.t5_table(b, 0) = double(b), t.t5_table(b, 1) = -3.0;
            const Scheme_ s(t, n);
            const double* relative = s.bias(0).relative;
            const auto last = static_cast<std::int64_t>(n - 1);
            for (std::int64_t r = -last; r <= last; ++r) {
                INFO("buckets ", buckets.num_buckets, " max distance ", buckets.max_distance,
                     " bidirectional ", buckets.bidirectional, " n ", n, " offset ", r);
                CHECK(relative[r] == double(attn::positions::t5_bucket(r, buckets)));
                CHECK(s.bias(1).relative[r] == -3.0);
            }
        }
}
