#include "attn/attention/score.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace attn {

void check_fill(double fill) {
    if (std::isnan(fill) || fill == std::numeric_limits<double>::infinity())
        throw std::invalid_argument(fmt::format("{} is not a number or -inf", fill));
}

void check_softcap(double cap) {
    if (!std::isfinite(cap) || !(cap > 0))
        throw std::invalid_argument(fmt::format("{} is not a finite soft-cap above 0", cap));
}

bool masked(const MaskOptions& options, std::size_t i, std::size_t j) {
    return (options.causal && j > i) || (options.valid_len && j >= *options.valid_len) ||
           (options.sliding_window && j + *options.sliding_window <= i);
}

bool masks_any(const MaskOptions& options) {
    return options.causal || options.valid_len.has_value() || options.sliding_window.has_value();
}

template <class T>
AttentionBias<T> fused_bias(const ScoreOptions<T>& score, const MaskOptions& mask) {
    AttentionBias<T> b = score.bias;
    if (!score.softcap && !mask.sliding_window) return b;
    const std::optional<T> cap =
        score.softcap ? std::optional<T>(static_cast<T>(*score.softcap)) : std::nullopt;
    const std::optional<std::size_t> window = mask.sliding_window;
    // The kernel calls the tile callback after the scale, ALiBi and the relative table: the
    // tile holds the whole score here.
    b.add = [inner = b.add, cap, window](std::size_t row0, std::size_t col0, std::size_t rows,
                                         std::size_t cols, T* tile, std::size_t stride) {
        if (inner) inner(row0, col0, rows, cols, tile, stride);
        if (cap) soft_cap_tile(tile, rows, cols, stride, *cap);
        if (window)  // keys j <= i - W hidden
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < cols && col0 + c + *window <= row0 + r; ++c)
                    tile[r * stride + c] = -std::numeric_limits<T>::infinity();
    };
    return b;
}

template <class T>
TiledOptions fused_options(const ScoreOptions<T>& score, const MaskOptions& mask,
                           std::function<void(std::size_t)> progress) {
    TiledOptions t;
    t.scale = score.scale;
    t.causal = mask.causal;
    t.valid_len = mask.valid_len;
    t.fill = mask.fill;
    t.progress = std::move(progress);
    return t;
}

template AttentionBias<float> fused_bias(const ScoreOptions<float>&, const MaskOptions&);
template AttentionBias<double> fused_bias(const ScoreOptions<double>&, const MaskOptions&);
template TiledOptions fused_options(const ScoreOptions<float>&, const MaskOptions&,
                                    std::function<void(std::size_t)>);
template TiledOptions fused_options(const ScoreOptions<double>&, const MaskOptions&,
                                    std::function<void(std::size_t)>);

}  // namespace attn
