#include "attn/model/lens.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "runtime/parallel.hpp"

namespace attn::model {

namespace {

// a ranks above b: the larger logit (NaN below every number), ties by the smaller id
bool above(const std::pair<double, std::size_t>& a, const std::pair<double, std::size_t>& b) {
    const double x = std::isnan(a.first) ? -std::numeric_limits<double>::infinity() : a.first;
    const double y = std::isnan(b.first) ? -std::numeric_limits<double>::infinity() : b.first;
    if (x != y) return x > y;
    if (std::isnan(a.first) != std::isnan(b.first)) return std::isnan(b.first);
    return a.second < b.second;
}

}  // namespace

LensScan::LensScan(std::size_t rows, std::size_t top, std::size_t vocab,
                   std::vector<std::int64_t> targets)
    : top_(std::min(top, vocab)), targets_(std::move(targets)), rows_(rows) {
    if (targets_.size() != rows) throw std::invalid_argument("lens: one target per row");
    for (Row& r : rows_) r.top.reserve(top_ + 1);
}

template <class T>
void LensScan::add(const T* logits, std::size_t v0, std::size_t count) {
    parallel_for(rows_.size(), 4, [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) add_row(r, logits + r * count, v0, count);
    });
}

template <class T>
void LensScan::add_row(std::size_t r, const T* l, std::size_t v0, std::size_t count) {
    {
        Row& row = rows_[r];
        // the block's maximum, then its terms scaled to the running maximum
        double m = -std::numeric_limits<double>::infinity();
        bool nan = false;
        for (std::size_t v = 0; v < count; ++v) {
            const double x = static_cast<double>(l[v]);
            nan |= std::isnan(x);
            m = std::max(m, x);
        }
        if (nan) m = std::numeric_limits<double>::quiet_NaN();
        const double new_max =
            std::isnan(m) || std::isnan(row.max) ? m + row.max : std::max(row.max, m);
        double sum = 0;
        if (!std::isinf(new_max) || new_max > 0)
            for (std::size_t v = 0; v < count; ++v)
                sum += std::exp(static_cast<double>(l[v]) - new_max);
        row.sum = (row.sum > 0 ? row.sum * std::exp(row.max - new_max) : 0.0) + sum;
        row.max = new_max;
        const std::int64_t t = targets_[r];
        if (t >= 0 && static_cast<std::size_t>(t) >= v0 && static_cast<std::size_t>(t) < v0 + count)
            row.target = static_cast<double>(l[static_cast<std::size_t>(t) - v0]);
        // the top K: a min-heap whose front is the K-th best so far
        // (a full heap admits nothing below its front's logit: one comparison for most ids)
        const auto worse = [](const auto& a, const auto& b) { return above(a, b); };
        const auto floor = [&row] {
            const double f = row.top.front().first;
            return std::isnan(f) ? -std::numeric_limits<double>::infinity() : f;
        };
        double least = top_ > 0 && row.top.size() == top_ ? floor() : 0.0;
        for (std::size_t v = 0; v < count; ++v) {
            const std::pair<double, std::size_t> c{static_cast<double>(l[v]), v0 + v};
            if (row.top.size() < top_) {
                row.top.push_back(c);
                std::push_heap(row.top.begin(), row.top.end(), worse);
                if (row.top.size() == top_) least = floor();
            } else if (top_ > 0 && c.first >= least && above(c, row.top.front())) {
                std::pop_heap(row.top.begin(), row.top.end(), worse);
                row.top.back() = c;
                std::push_heap(row.top.begin(), row.top.end(), worse);
                least = floor();
            }
        }
    }
}

LensRows LensScan::finish() const {
    LensRows out;
    out.rows = rows_.size();
    out.top = top_;
    for (const Row& row : rows_) {
        std::vector<std::pair<double, std::size_t>> top = row.top;
        std::sort(top.begin(), top.end(), above);
        const auto p = [&row](double logit) { return std::exp(logit - row.max) / row.sum; };
        for (const auto& [logit, id] : top) {
            out.ids.push_back(id);
            out.probabilities.push_back(p(logit));
        }
        out.target.push_back(p(row.target));
    }
    return out;
}

template void LensScan::add(const float*, std::size_t, std::size_t);
template void LensScan::add(const double*, std::size_t, std::size_t);
template void LensScan::add_row(std::size_t, const float*, std::size_t, std::size_t);
template void LensScan::add_row(std::size_t, const double*, std::size_t, std::size_t);

}  // namespace attn::model
