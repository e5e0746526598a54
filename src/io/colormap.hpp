// Colour maps for the picture writers (svg, heatmap): a value in [0, 1] -> an sRGB colour.
//   blues    matplotlib's "Blues" (ColorBrewer, 9 classes): light for 0, dark blue for 1.
//            The book draws P with it; the default for data of one sign.
//   viridis  matplotlib's perceptually uniform map (CC0), dark purple -> yellow.
//   rdbu     matplotlib's "RdBu" (ColorBrewer, 11 classes), diverging: dark red for 0,
//            near white for 0.5, dark blue for 1; the default for data of both signs.
// Between the control points colours are interpolated linearly in sRGB, as matplotlib's
// LinearSegmentedColormap does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attn::io {

enum class Colormap { blues, viridis, rdbu };

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    friend bool operator==(const Rgb&, const Rgb&) = default;
};

/// "blues" -> Colormap::blues, ...; nullopt for an unknown name.
std::optional<Colormap> parse_colormap(std::string_view name);
std::string_view colormap_name(Colormap c);

/// The colour at t in [0, 1] (clamped; NaN gives the colour at 0.5).
Rgb colormap_color(Colormap c, double t);

/// The default map for data in [lo, hi]: rdbu when the data has both signs, else blues.
Colormap default_colormap(double lo, double hi);

/// Where value v falls on the map, in [0, 1], for data in [lo, hi]. Sequential maps
/// stretch [lo, hi] onto [0, 1]; a diverging map (rdbu) centres 0 at 0.5 and stretches
/// [-m, m], m = max(|lo|, |hi|). Constant data gives 0.5; -inf 0, +inf 1, NaN 0.5.
double colormap_position(Colormap c, double v, double lo, double hi);

/// The range the colour bar shows for data in [lo, hi]: [lo, hi], or [-m, m] for rdbu.
std::pair<double, double> colormap_range(Colormap c, double lo, double hi);

/// "#rrggbb".
std::string hex(Rgb c);

/// The nearest colour of xterm's 256-colour palette (6x6x6 cube 16-231, greys 232-255;
/// the 16 system colours depend on the terminal's theme and are not used) by CIEDE2000
/// colour difference in CIELAB (D65): rdbu's ends stay red and blue, its middle white.
int xterm256(Rgb c);
/// xterm's colour k (16..255) as sRGB.
Rgb xterm256_rgb(int k);

/// CIELAB under D65 of an sRGB colour.
struct Lab {
    double l = 0, a = 0, b = 0;
};
Lab to_lab(Rgb c);
/// The CIEDE2000 colour difference (Sharma, Wu, Dalal 2005) of two CIELAB colours.
double delta_e2000(const Lab& p, const Lab& q);

/// WCAG relative luminance of an sRGB colour, in [0, 1].
double relative_luminance(Rgb c);
/// Text drawn on background c: black or white, whichever contrasts more (WCAG ratio).
Rgb contrasting_text(Rgb c);

}  // namespace attn::io
