#include "io/picture_scale.hpp"

#include <algorithm>
#include <limits>

namespace attn::io {

PictureScale picture_scale(const PanelAverage& grid, const ArrayInfo& info,
                           const PictureStyle& style) {
    PictureScale s;
    if (info.noise) s.noise = info.noise->below;
    // The data's finite range with noise shown as 0.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t p = 0; p < grid.panels(); ++p) {
        const BlockAverage& g = grid.panel(p);
        for (std::size_t i = 0; i < g.rows(); ++i)
            for (std::size_t j = 0; j < g.cols(); ++j) {
                if (g.masked(i, j) || !std::isfinite(g(i, j))) continue;
                const double v = s.shown(g(i, j));
                s.zeroed = s.zeroed || (v == 0 && g(i, j) != 0);
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    }
    if (!(lo <= hi)) lo = hi = 0;  // nothing finite
    if (info.noise && lo == 0 && hi == 0 && info.noise->scale > 0)
        lo = -info.noise->scale, hi = info.noise->scale;
    if (!info.noise) std::tie(lo, hi) = grid.finite_range();
    std::tie(s.lo, s.hi) =
        style.range ? *style.range : info.value_range.value_or(std::pair{lo, hi});
    return s;
}

}  // namespace attn::io
