#include "io/colormap.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using attn::io::Colormap;
using attn::io::colormap_color;
using attn::io::colormap_position;
using attn::io::Rgb;

TEST_CASE("colormap: ends and middles are matplotlib's") {
    CHECK(hex(colormap_color(Colormap::blues, 0.0)) == "#f7fbff");
    CHECK(hex(colormap_color(Colormap::blues, 1.0)) == "#08306b");
    CHECK(hex(colormap_color(Colormap::blues, 0.5)) == "#6baed6");  // control point 4 of 8
    CHECK(hex(colormap_color(Colormap::rdbu, 0.0)) == "#67001f");
    CHECK(hex(colormap_color(Colormap::rdbu, 0.5)) == "#f7f7f7");
    CHECK(hex(colormap_color(Colormap::rdbu, 1.0)) == "#053061");
    CHECK(hex(colormap_color(Colormap::viridis, 0.0)) == "#440154");
    CHECK(hex(colormap_color(Colormap::viridis, 1.0)) == "#fde725");
    // matplotlib: viridis(128 / 255) = (0.127568, 0.566949, 0.550556) = #21918c.
    CHECK(hex(colormap_color(Colormap::viridis, 128.0 / 255)) == "#21918c");
}

TEST_CASE("colormap: t is clamped, NaN is the middle") {
    CHECK(colormap_color(Colormap::blues, -3.0) == colormap_color(Colormap::blues, 0.0));
    CHECK(colormap_color(Colormap::blues, 7.0) == colormap_color(Colormap::blues, 1.0));
    CHECK(colormap_color(Colormap::rdbu, std::nan("")) == colormap_color(Colormap::rdbu, 0.5));
}

TEST_CASE("colormap: names") {
    CHECK(attn::io::parse_colormap("viridis") == Colormap::viridis);
    CHECK(!attn::io::parse_colormap("jet"));
    CHECK(attn::io::colormap_name(Colormap::rdbu) == "rdbu");
}

TEST_CASE("colormap: default by the signs of the data") {
    CHECK(attn::io::default_colormap(-1, 1) == Colormap::rdbu);
    CHECK(attn::io::default_colormap(0, 1) == Colormap::blues);  // attention weights
    CHECK(attn::io::default_colormap(-5, 0) == Colormap::blues);
}

TEST_CASE("colormap: position stretches [lo, hi], diverging maps centre zero") {
    CHECK(colormap_position(Colormap::blues, 0.0, 0.0, 1.0) == 0.0);
    CHECK(colormap_position(Colormap::blues, 0.25, 0.0, 0.5) == 0.5);
    CHECK(colormap_position(Colormap::viridis, 3.0, 2.0, 4.0) == 0.5);
    CHECK(colormap_position(Colormap::rdbu, 0.0, -0.5, 2.0) == 0.5);
    CHECK(colormap_position(Colormap::rdbu, 2.0, -0.5, 2.0) == 1.0);
    CHECK(colormap_position(Colormap::rdbu, -0.5, -0.5, 2.0) == 0.375);
    CHECK(colormap_position(Colormap::blues, 1.0, 1.0, 1.0) == 0.5);  // constant data
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(colormap_position(Colormap::blues, -inf, 0.0, 1.0) == 0.0);  // masked scores
    CHECK(colormap_position(Colormap::blues, inf, 0.0, 1.0) == 1.0);
}

TEST_CASE("colormap: xterm 256-colour palette, nearest by CIEDE2000") {
    using attn::io::xterm256;
    CHECK(xterm256({0, 0, 0}) == 16);
    CHECK(xterm256({255, 255, 255}) == 231);
    CHECK(xterm256({255, 0, 0}) == 196);
    CHECK(xterm256({128, 128, 128}) == 244);  // grey 8 + 10 * 12 = 128
    // Every palette colour is its own nearest.
    for (int k = 16; k < 256; ++k) CHECK(xterm256(attn::io::xterm256_rgb(k)) == k);
    // rdbu keeps its hues: +1 (#053061) navy (0, 0, 135), not the teal (0, 95, 95) of a
    // distance in sRGB; -1 (#67001f) dark red (95, 0, 0); 0 (#f7f7f7) white.
    const auto rdbu = [](double t) { return colormap_color(Colormap::rdbu, t); };
    CHECK(xterm256(rdbu(1.0)) == 18);
    CHECK(xterm256(rdbu(0.0)) == 52);
    CHECK(xterm256(rdbu(0.5)) == 231);
    CHECK(xterm256(rdbu(0.9)) == 25);                             // #2166ac: (0, 95, 175)
    CHECK(xterm256(colormap_color(Colormap::blues, 1.0)) == 18);  // #08306b
    CHECK(xterm256(colormap_color(Colormap::blues, 0.0)) == 231);
    CHECK(xterm256(colormap_color(Colormap::viridis, 1.0)) == 220);  // #fde725: (255, 215, 0)
    CHECK(attn::io::xterm256_rgb(18) == Rgb{0, 0, 135});
    CHECK(attn::io::xterm256_rgb(232) == Rgb{8, 8, 8});
}

TEST_CASE("colormap: CIELAB and CIEDE2000 against Sharma, Wu and Dalal's test data") {
    using attn::io::Lab;
    // Pairs 1, 7, 13, 17, 25 and 34 of the paper's table 1, with their published dE00.
    struct Pair {
        Lab p, q;
        double de;
    };
    const Pair pairs[] = {
        {{50.0, 2.6772, -79.7751}, {50.0, 0.0, -82.7485}, 2.0425},
        {{50.0, 0.0, 0.0}, {50.0, -1.0, 2.0}, 2.3669},
        {{50.0, 2.49, -0.001}, {50.0, -2.49, 0.0011}, 7.2195},
        {{50.0, 2.5, 0.0}, {73.0, 25.0, -18.0}, 27.1492},
        {{60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}, 1.2644},
        {{2.0776, 0.0795, -1.1350}, {0.9033, -0.0636, -0.5514}, 0.9082},
    };
    for (const auto& t : pairs) {
        CHECK(attn::io::delta_e2000(t.p, t.q) == doctest::Approx(t.de).epsilon(1e-4));
        CHECK(attn::io::delta_e2000(t.q, t.p) == doctest::Approx(t.de).epsilon(1e-4));
    }
    // sRGB white is D65's L = 100, a = b = 0; pure red is (53.24, 80.09, 67.20).
    const Lab white = attn::io::to_lab({255, 255, 255});
    CHECK(white.l == doctest::Approx(100).epsilon(1e-6));
    CHECK(std::fabs(white.a) < 1e-3);
    CHECK(std::fabs(white.b) < 1e-3);
    const Lab red = attn::io::to_lab({255, 0, 0});
    CHECK(red.l == doctest::Approx(53.24).epsilon(1e-3));
    CHECK(red.a == doctest::Approx(80.09).epsilon(1e-3));
    CHECK(red.b == doctest::Approx(67.20).epsilon(1e-3));
}

TEST_CASE("colormap: text colour contrasting with a cell (WCAG luminance)") {
    using attn::io::contrasting_text;
    CHECK(attn::io::relative_luminance({255, 255, 255}) == doctest::Approx(1.0));
    CHECK(attn::io::relative_luminance({0, 0, 0}) == 0.0);
    // (0.2126, 0.7152, 0.0722) weights of linear light: pure green 0.7152.
    CHECK(attn::io::relative_luminance({0, 255, 0}) == doctest::Approx(0.7152));
    const Rgb black{0, 0, 0}, white{255, 255, 255};
    CHECK(contrasting_text(colormap_color(Colormap::blues, 0.0)) == black);
    CHECK(contrasting_text(colormap_color(Colormap::blues, 1.0)) == white);
    CHECK(contrasting_text(colormap_color(Colormap::rdbu, 0.5)) == black);
    CHECK(contrasting_text(colormap_color(Colormap::rdbu, 0.0)) == white);
    CHECK(contrasting_text(colormap_color(Colormap::viridis, 1.0)) == black);
    CHECK(contrasting_text(colormap_color(Colormap::viridis, 0.0)) == white);
    // Grey 118 has luminance 0.181 (black text); grey 116, 0.175 (white).
    CHECK(contrasting_text({118, 118, 118}) == black);
    CHECK(contrasting_text({116, 116, 116}) == white);
}
