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

TEST_CASE("colormap: xterm 256-colour palette") {
    CHECK(attn::io::xterm256({0, 0, 0}) == 16);
    CHECK(attn::io::xterm256({255, 255, 255}) == 231);
    CHECK(attn::io::xterm256({255, 0, 0}) == 196);
    CHECK(attn::io::xterm256({0x08, 0x30, 0x6b}) == 23);  // blues' darkest: cube (0, 1, 1)
    CHECK(attn::io::xterm256({128, 128, 128}) == 244);    // grey 8 + 10 * 12 = 128
}
