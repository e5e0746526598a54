// The colour scale of a picture (svg, png, terminal heatmap): which values it spans and how a
// cell's value is shown. In order of precedence: --range LO:HI (PictureStyle::range), the
// array's own ArrayInfo::value_range (attention weights: 0 to 1), the data's finite range.
// Rounding noise (ArrayInfo::noise) is shown as 0 and left out of the data's range; when
// nothing is left the range is [-scale, scale] of the values the difference compares.
#pragma once

#include <cmath>
#include <utility>

#include "io/array_sink.hpp"
#include "io/block_average.hpp"
#include "io/format.hpp"

namespace attn::io {

struct PictureScale {
    double lo = 0, hi = 0;  // before colormap_range (which centres rdbu on 0)
    double noise = 0;       // |v| <= noise shows as 0 (0: nothing is noise)
    bool zeroed = false;    // some non-zero value was shown as 0
    /// The value a cell shows.
    double shown(double v) const { return std::fabs(v) <= noise ? 0.0 : v; }
};

PictureScale picture_scale(const PanelAverage& grid, const ArrayInfo& info,
                           const PictureStyle& style);

}  // namespace attn::io
