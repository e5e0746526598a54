#include "attn/weight_divergence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

namespace {

/// x log(x / y), 0 where x = 0 and y is a number (0 log 0 = 0); NaN when x or y is; +inf where
/// y = 0 < x.
double x_log_ratio(double x, double y) {
    if (x == 0 && !std::isnan(y)) return 0;
    return x * std::log(x / y);
}

}  // namespace

double js_divergence(const double* p, const double* q, std::size_t n) {
    // sum_j p_j/2 log(p_j / m_j) + q_j/2 log(q_j / m_j), m_j = (p_j + q_j) / 2; m_j > 0 wherever
    // p_j or q_j is, m_j NaN wherever either is NaN
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
        const double m = 0.5 * (p[j] + q[j]);
        sum += 0.5 * x_log_ratio(p[j], m) + 0.5 * x_log_ratio(q[j], m);
    }
    return sum;
}

double kl_divergence(const double* p, const double* q, std::size_t n) {
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += x_log_ratio(p[j], q[j]);
    return sum;
}

std::size_t argmax(const double* v, std::size_t n) {
    std::size_t best = 0;
    if (std::isnan(v[0])) return 0;
    for (std::size_t j = 1; j < n; ++j) {
        if (std::isnan(v[j])) return j;
        if (v[j] > v[best]) best = j;
    }
    return best;
}

double max_nan(double a, double b) {
    return a > b || std::isnan(a) ? a : b;
}

void HeadDivergence::add_rows(const double* a, const double* b, std::size_t rows, std::size_t n,
                              std::size_t stride) {
    for (std::size_t r = 0; r < rows; ++r) {
        const double* ar = a + r * stride;
        const double* br = b + r * stride;
        js_sum_ += js_divergence(ar, br, n);
        same_ += argmax(ar, n) == argmax(br, n) ? 1 : 0;
        for (std::size_t j = 0; j < n; ++j) max_abs_ = max_nan(max_abs_, std::abs(ar[j] - br[j]));
    }
    queries_ += rows;
}

double HeadDivergence::js() const {
    return queries_ ? js_sum_ / static_cast<double>(queries_) : NAN;
}

double HeadDivergence::top1() const {
    return queries_ ? static_cast<double>(same_) / static_cast<double>(queries_) : NAN;
}

void PooledDivergence::add(const HeadDivergence& d) {
    js_sum += d.js();
    top1_sum += d.top1();
    max_abs = max_nan(max_abs, d.max_abs());
    ++prompts;
}

double PooledDivergence::js() const {
    return prompts ? js_sum / static_cast<double>(prompts) : NAN;
}

double PooledDivergence::top1() const {
    return prompts ? top1_sum / static_cast<double>(prompts) : NAN;
}

double relative_max_difference(const double* a, const double* b, std::size_t count) {
    double diff = 0, scale = 0;
    for (std::size_t k = 0; k < count; ++k) {
        diff = max_nan(diff, std::abs(a[k] - b[k]));
        scale = max_nan(scale, std::abs(a[k]));
    }
    if (std::isnan(diff)) return diff;  // a NaN in a or b (a's makes a - b NaN too)
    if (diff == 0) return 0;
    return scale > 0 ? diff / scale : std::numeric_limits<double>::infinity();
}

NextDivergence next_divergence(const std::vector<double>& a, const std::vector<double>& b) {
    const std::size_t n = std::min(a.size(), b.size());
    NextDivergence d;
    d.kl = kl_divergence(a.data(), b.data(), n);
    d.same_top1 = n > 0 && argmax(a.data(), n) == argmax(b.data(), n);
    return d;
}

}  // namespace attn
