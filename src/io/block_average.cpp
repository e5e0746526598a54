#include "io/block_average.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace attn::io {

namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) {
    return b == 0 ? 0 : (a + b - 1) / b;
}

}  // namespace

BlockAverage::BlockAverage(std::size_t rows, std::size_t cols, std::size_t max_rows,
                           std::size_t max_cols)
    : src_rows_(rows), src_cols_(cols) {
    br_ = std::max<std::size_t>(1, ceil_div(rows, std::max<std::size_t>(1, max_rows)));
    bc_ = std::max<std::size_t>(1, ceil_div(cols, std::max<std::size_t>(1, max_cols)));
    rows_ = ceil_div(rows, br_);
    cols_ = ceil_div(cols, bc_);
    sum_.assign(rows_ * cols_, 0.0);
}

void BlockAverage::add(std::size_t first_row, const double* values, std::size_t n_rows,
                       bool round_to_float, const CellMask& mask, std::size_t mask_row0) {
    for (std::size_t r = 0; r < n_rows; ++r) {
        const std::size_t i = (first_row + r) / br_;
        if (i >= rows_) break;
        double* out = &sum_[i * cols_];
        const double* row = values + r * src_cols_;
        for (std::size_t j = 0; j < src_cols_; ++j) {
            if (mask && mask(mask_row0 + first_row + r, j)) {
                if (masked_.empty()) masked_.assign(rows_ * cols_, 0);
                ++masked_[i * cols_ + j / bc_];
                continue;
            }
            const double v = round_to_float ? double(static_cast<float>(row[j])) : row[j];
            out[j / bc_] += v;
        }
    }
}

std::size_t BlockAverage::count(std::size_t i, std::size_t j) const {
    const std::size_t h = std::min(br_, src_rows_ - i * br_);
    const std::size_t w = std::min(bc_, src_cols_ - j * bc_);
    return h * w;
}

bool BlockAverage::masked(std::size_t i, std::size_t j) const {
    return !masked_.empty() && masked_[i * cols_ + j] == count(i, j);
}

double BlockAverage::operator()(std::size_t i, std::size_t j) const {
    std::size_t n = count(i, j);
    if (!masked_.empty()) n -= masked_[i * cols_ + j];
    const double s = sum_[i * cols_ + j];
    return n <= 1 ? s : s / double(n);
}

std::pair<double, double> BlockAverage::finite_range() const {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t i = 0; i < rows_; ++i)
        for (std::size_t j = 0; j < cols_; ++j) {
            const double v = (*this)(i, j);
            if (!std::isfinite(v) || masked(i, j)) continue;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    if (lo > hi) return {0.0, 0.0};
    return {lo, hi};
}

PanelAverage::PanelAverage(std::size_t rows, std::size_t cols, std::size_t panel_rows,
                           std::size_t max_rows, std::size_t max_cols, CellMask mask)
    : panel_rows_(panel_rows == 0 || panel_rows > rows ? rows : panel_rows),
      cols_(cols),
      mask_(std::move(mask)) {
    const std::size_t n = panel_rows_ == 0 ? 1 : ceil_div(rows, panel_rows_);
    panels_.reserve(n);
    for (std::size_t p = 0; p < n; ++p) {
        const std::size_t first = p * panel_rows_;
        panels_.emplace_back(std::min(panel_rows_, rows - first), cols, max_rows, max_cols);
    }
}

void PanelAverage::add(std::size_t first_row, const double* values, std::size_t n_rows,
                       bool round_to_float) {
    while (n_rows > 0 && panel_rows_ > 0) {
        const std::size_t p = first_row / panel_rows_;
        if (p >= panels_.size()) return;
        const std::size_t local = first_row - p * panel_rows_;
        const std::size_t take = std::min(n_rows, panel_rows_ - local);
        panels_[p].add(local, values, take, round_to_float, mask_, p * panel_rows_);
        values += take * cols_;
        first_row += take;
        n_rows -= take;
    }
}

bool PanelAverage::any_masked() const {
    return std::any_of(panels_.begin(), panels_.end(),
                       [](const BlockAverage& b) { return b.any_masked(); });
}

std::pair<double, double> PanelAverage::finite_range() const {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& b : panels_) {
        const auto [a, z] = b.finite_range();
        if (a == 0 && z == 0) {
            // {0, 0} also means "no finite cell": a panel of zeros still counts.
            bool any = false;
            for (std::size_t i = 0; i < b.rows() && !any; ++i)
                for (std::size_t j = 0; j < b.cols() && !any; ++j)
                    any = !b.masked(i, j) && std::isfinite(b(i, j));
            if (!any) continue;
        }
        lo = std::min(lo, a);
        hi = std::max(hi, z);
    }
    if (lo > hi) return {0.0, 0.0};
    return {lo, hi};
}

}  // namespace attn::io
