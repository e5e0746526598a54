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
                       bool round_to_float) {
    for (std::size_t r = 0; r < n_rows; ++r) {
        const std::size_t i = (first_row + r) / br_;
        if (i >= rows_) break;
        double* out = &sum_[i * cols_];
        const double* row = values + r * src_cols_;
        for (std::size_t j = 0; j < src_cols_; ++j) {
            const double v = round_to_float ? double(static_cast<float>(row[j])) : row[j];
            out[j / bc_] += v;
        }
    }
}

double BlockAverage::operator()(std::size_t i, std::size_t j) const {
    const std::size_t h = std::min(br_, src_rows_ - i * br_);
    const std::size_t w = std::min(bc_, src_cols_ - j * bc_);
    const double s = sum_[i * cols_ + j];
    return h * w == 1 ? s : s / double(h * w);
}

std::pair<double, double> BlockAverage::finite_range() const {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t i = 0; i < rows_; ++i)
        for (std::size_t j = 0; j < cols_; ++j) {
            const double v = (*this)(i, j);
            if (!std::isfinite(v)) continue;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    if (lo > hi) return {0.0, 0.0};
    return {lo, hi};
}

}  // namespace attn::io
