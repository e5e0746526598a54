#include "io/colormap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <span>
#include <unordered_map>
#include <utility>

namespace attn::io {

namespace {

struct Point {
    double r, g, b;
};

// matplotlib _cm.py: _Blues_data (ColorBrewer Blues, 9 classes), equally spaced.
constexpr std::array<Point, 9> kBlues{{
    {0xf7 / 255.0, 0xfb / 255.0, 0xff / 255.0},
    {0xde / 255.0, 0xeb / 255.0, 0xf7 / 255.0},
    {0xc6 / 255.0, 0xdb / 255.0, 0xef / 255.0},
    {0x9e / 255.0, 0xca / 255.0, 0xe1 / 255.0},
    {0x6b / 255.0, 0xae / 255.0, 0xd6 / 255.0},
    {0x42 / 255.0, 0x92 / 255.0, 0xc6 / 255.0},
    {0x21 / 255.0, 0x71 / 255.0, 0xb5 / 255.0},
    {0x08 / 255.0, 0x51 / 255.0, 0x9c / 255.0},
    {0x08 / 255.0, 0x30 / 255.0, 0x6b / 255.0},
}};

// matplotlib _cm.py: _RdBu_data (ColorBrewer RdBu, 11 classes), equally spaced.
constexpr std::array<Point, 11> kRdBu{{
    {0x67 / 255.0, 0x00 / 255.0, 0x1f / 255.0},
    {0xb2 / 255.0, 0x18 / 255.0, 0x2b / 255.0},
    {0xd6 / 255.0, 0x60 / 255.0, 0x4d / 255.0},
    {0xf4 / 255.0, 0xa5 / 255.0, 0x82 / 255.0},
    {0xfd / 255.0, 0xdb / 255.0, 0xc7 / 255.0},
    {0xf7 / 255.0, 0xf7 / 255.0, 0xf7 / 255.0},
    {0xd1 / 255.0, 0xe5 / 255.0, 0xf0 / 255.0},
    {0x92 / 255.0, 0xc5 / 255.0, 0xde / 255.0},
    {0x43 / 255.0, 0x93 / 255.0, 0xc3 / 255.0},
    {0x21 / 255.0, 0x66 / 255.0, 0xac / 255.0},
    {0x05 / 255.0, 0x30 / 255.0, 0x61 / 255.0},
}};

// matplotlib _cm_listed.py: _viridis_data (256 entries, CC0), entries 0, 8, ..., 248
// and 255. Linear interpolation between them stays within 1/255 of the full table.
struct IndexedPoint {
    int index;  // in the 256-entry table
    Point c;
};
constexpr std::array<IndexedPoint, 33> kViridis{{
    {0, {0.267004, 0.004874, 0.329415}},   {8, {0.277018, 0.050344, 0.375715}},
    {16, {0.282327, 0.094955, 0.417331}},  {24, {0.282884, 0.135920, 0.453427}},
    {32, {0.278826, 0.175490, 0.483397}},  {40, {0.270595, 0.214069, 0.507052}},
    {48, {0.258965, 0.251537, 0.524736}},  {56, {0.244972, 0.287675, 0.537260}},
    {64, {0.229739, 0.322361, 0.545706}},  {72, {0.214298, 0.355619, 0.551184}},
    {80, {0.199430, 0.387607, 0.554642}},  {88, {0.185556, 0.418570, 0.556753}},
    {96, {0.172719, 0.448791, 0.557885}},  {104, {0.160665, 0.478540, 0.558115}},
    {112, {0.149039, 0.508051, 0.557250}}, {120, {0.137770, 0.537492, 0.554906}},
    {128, {0.127568, 0.566949, 0.550556}}, {136, {0.120565, 0.596422, 0.543611}},
    {144, {0.120638, 0.625828, 0.533488}}, {152, {0.132268, 0.655014, 0.519661}},
    {160, {0.157851, 0.683765, 0.501686}}, {168, {0.196571, 0.711827, 0.479221}},
    {176, {0.246070, 0.738910, 0.452024}}, {184, {0.304148, 0.764704, 0.419943}},
    {192, {0.369214, 0.788888, 0.382914}}, {200, {0.440137, 0.811138, 0.340967}},
    {208, {0.515992, 0.831158, 0.294279}}, {216, {0.595839, 0.848717, 0.243329}},
    {224, {0.678489, 0.863742, 0.189503}}, {232, {0.762373, 0.876424, 0.137064}},
    {240, {0.845561, 0.887322, 0.099702}}, {248, {0.926106, 0.897330, 0.104071}},
    {255, {0.993248, 0.906157, 0.143936}},
}};

std::uint8_t channel(double x) {
    return static_cast<std::uint8_t>(std::lround(std::clamp(x, 0.0, 1.0) * 255.0));
}

Rgb mix(const Point& a, const Point& b, double f) {
    return {channel(a.r + (b.r - a.r) * f), channel(a.g + (b.g - a.g) * f),
            channel(a.b + (b.b - a.b) * f)};
}

// Equally spaced control points.
Rgb interpolate(std::span<const Point> points, double t) {
    const double x = t * double(points.size() - 1);
    const auto k = std::min(static_cast<std::size_t>(x), points.size() - 2);
    return mix(points[k], points[k + 1], x - double(k));
}

Rgb interpolate_viridis(double t) {
    const double x = t * 255.0;
    std::size_t k = 0;
    while (k + 2 < kViridis.size() && double(kViridis[k + 1].index) <= x) ++k;
    const auto& a = kViridis[k];
    const auto& b = kViridis[k + 1];
    return mix(a.c, b.c, (x - a.index) / double(b.index - a.index));
}

constexpr std::array<std::pair<Colormap, std::string_view>, 3> kNames{{
    {Colormap::blues, "blues"},
    {Colormap::viridis, "viridis"},
    {Colormap::rdbu, "rdbu"},
}};

}  // namespace

std::optional<Colormap> parse_colormap(std::string_view name) {
    for (const auto& [c, n] : kNames)
        if (n == name) return c;
    return std::nullopt;
}

std::string_view colormap_name(Colormap c) {
    for (const auto& [m, n] : kNames)
        if (m == c) return n;
    return "?";
}

Rgb colormap_color(Colormap c, double t) {
    if (std::isnan(t)) t = 0.5;
    t = std::clamp(t, 0.0, 1.0);
    switch (c) {
        case Colormap::blues:
            return interpolate(kBlues, t);
        case Colormap::rdbu:
            return interpolate(kRdBu, t);
        case Colormap::viridis:
            return interpolate_viridis(t);
    }
    return {};
}

Colormap default_colormap(double lo, double hi) {
    return lo < 0 && hi > 0 ? Colormap::rdbu : Colormap::blues;
}

std::pair<double, double> colormap_range(Colormap c, double lo, double hi) {
    if (c != Colormap::rdbu) return {lo, hi};
    const double m = std::max(std::fabs(lo), std::fabs(hi));
    return {-m, m};
}

double colormap_position(Colormap c, double v, double lo, double hi) {
    if (std::isnan(v)) return 0.5;
    if (std::isinf(v)) return v < 0 ? 0.0 : 1.0;
    const auto [a, b] = colormap_range(c, lo, hi);
    if (!(b > a)) return 0.5;
    return std::clamp((v - a) / (b - a), 0.0, 1.0);
}

std::string hex(Rgb c) {
    return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
}

namespace {

double linear(std::uint8_t c) {
    const double x = c / 255.0;
    return x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
}

}  // namespace

// sRGB -> XYZ (D65) -> CIELAB.
Lab to_lab(Rgb c) {
    const double r = linear(c.r), g = linear(c.g), b = linear(c.b);
    const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    auto f = [](double t) {
        return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116;
    };
    const double fx = f(x), fy = f(y), fz = f(z);
    return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

namespace {

double degrees(double rad) {
    return rad * 180 / std::numbers::pi;
}
double radians(double deg) {
    return deg * std::numbers::pi / 180;
}

// Sharma, Wu, Dalal (2005), "The CIEDE2000 color-difference formula", eqs. (1)-(22).
}  // namespace

double delta_e2000(const Lab& p, const Lab& q) {
    const double c1 = std::hypot(p.a, p.b), c2 = std::hypot(q.a, q.b);
    const double cbar7 = std::pow((c1 + c2) / 2, 7);
    const double g = 0.5 * (1 - std::sqrt(cbar7 / (cbar7 + std::pow(25.0, 7))));
    const double a1 = (1 + g) * p.a, a2 = (1 + g) * q.a;
    const double c1p = std::hypot(a1, p.b), c2p = std::hypot(a2, q.b);
    auto hue = [](double b, double a) {
        if (a == 0 && b == 0) return 0.0;
        const double h = degrees(std::atan2(b, a));
        return h < 0 ? h + 360 : h;
    };
    const double h1 = hue(p.b, a1), h2 = hue(q.b, a2);
    const double dl = q.l - p.l, dc = c2p - c1p;
    double dh = 0;
    if (c1p * c2p != 0) {
        dh = h2 - h1;
        if (dh > 180) dh -= 360;
        if (dh < -180) dh += 360;
    }
    const double dhh = 2 * std::sqrt(c1p * c2p) * std::sin(radians(dh / 2));
    const double lbar = (p.l + q.l) / 2, cbarp = (c1p + c2p) / 2;
    double hbar = h1 + h2;
    if (c1p * c2p != 0) {
        if (std::fabs(h1 - h2) <= 180)
            hbar = (h1 + h2) / 2;
        else
            hbar = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
    }
    const double t = 1 - 0.17 * std::cos(radians(hbar - 30)) + 0.24 * std::cos(radians(2 * hbar)) +
                     0.32 * std::cos(radians(3 * hbar + 6)) -
                     0.20 * std::cos(radians(4 * hbar - 63));
    const double dtheta = 30 * std::exp(-std::pow((hbar - 275) / 25, 2));
    const double cbarp7 = std::pow(cbarp, 7);
    const double rc = 2 * std::sqrt(cbarp7 / (cbarp7 + std::pow(25.0, 7)));
    const double sl =
        1 + 0.015 * (lbar - 50) * (lbar - 50) / std::sqrt(20 + (lbar - 50) * (lbar - 50));
    const double sc = 1 + 0.045 * cbarp, sh = 1 + 0.015 * cbarp * t;
    const double rt = -std::sin(radians(2 * dtheta)) * rc;
    const double x = dl / sl, y = dc / sc, z = dhh / sh;
    return std::sqrt(x * x + y * y + z * z + rt * y * z);
}

Rgb xterm256_rgb(int k) {
    constexpr std::array<std::uint8_t, 6> levels{0, 95, 135, 175, 215, 255};
    if (k >= 232) {
        const auto v = static_cast<std::uint8_t>(8 + 10 * (k - 232));
        return {v, v, v};
    }
    k = std::max(k, 16) - 16;
    return {levels[k / 36], levels[k / 6 % 6], levels[k % 6]};
}

int xterm256(Rgb c) {
    static const std::array<Lab, 240> palette = [] {
        std::array<Lab, 240> p{};
        for (int k = 16; k < 256; ++k) p[k - 16] = to_lab(xterm256_rgb(k));
        return p;
    }();
    // A heatmap asks about the same few colours again and again.
    thread_local std::unordered_map<std::uint32_t, int> cache;
    const std::uint32_t key = std::uint32_t(c.r) << 16 | std::uint32_t(c.g) << 8 | c.b;
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
    if (cache.size() > 4096) cache.clear();
    const Lab lab = to_lab(c);
    int best = 16;
    double best_d = std::numeric_limits<double>::infinity();
    for (int k = 16; k < 256; ++k) {
        const double d = delta_e2000(lab, palette[k - 16]);
        if (d < best_d) best_d = d, best = k;
    }
    cache.emplace(key, best);
    return best;
}

double relative_luminance(Rgb c) {
    return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

Rgb contrasting_text(Rgb c) {
    // Contrast ratios (L + 0.05) / 0.05 against black and 1.05 / (L + 0.05) against white
    // are equal at L = 0.179.
    return relative_luminance(c) > 0.179 ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
}

}  // namespace attn::io
