#include "attn/pooled_summaries.hpp"

#include <stdexcept>
#include <utility>

namespace attn {

void PooledSummaries::widen(std::size_t n) {
    if (n <= longest_) return;
    const std::size_t old_w = longest_ ? 2 * longest_ - 1 : 0, w = 2 * n - 1, shift = n - longest_;
    std::vector<double> sums(offset_rows_ * w, 0.0), counts(w, 0.0);
    for (std::size_t r = 0; r < offset_rows_; ++r)
        for (std::size_t k = 0; k < old_w; ++k)
            sums[r * w + k + shift] = offset_sums_[r * old_w + k];
    for (std::size_t k = 0; k < old_w; ++k) counts[k + shift] = offset_counts_[k];
    offset_sums_ = std::move(sums);
    offset_counts_ = std::move(counts);
    longest_ = n;
}

void PooledSummaries::add(const model::AttentionSummaries& s) {
    const std::size_t n = s.n();
    const auto& stats = s.head_stats();
    if (prompts_ == 0) {
        stat_sums_.assign(stats.size(), {});
        for (std::size_t r = 0; r < stats.size(); ++r) {
            stat_sums_[r].layer = stats[r].layer;
            stat_sums_[r].head = stats[r].head;
        }
        offset_rows_ = s.offsets().size() / (2 * n - 1);
    }
    if (stats.size() != stat_sums_.size() || s.offsets().size() != offset_rows_ * (2 * n - 1))
        throw std::invalid_argument("pooled summaries: a prompt with other heads");
    const double q = static_cast<double>(n), qp = static_cast<double>(n - 1);
    for (std::size_t r = 0; r < stats.size(); ++r) {
        model::HeadStats& t = stat_sums_[r];
        if (t.layer != stats[r].layer || t.head != stats[r].head)
            throw std::invalid_argument("pooled summaries: a prompt with other heads");
        t.entropy += q * stats[r].entropy;
        t.distance += q * stats[r].distance;
        t.first += q * stats[r].first;
        t.self += q * stats[r].self;
        t.previous += qp * stats[r].previous;
    }
    queries_ += q;
    previous_queries_ += qp;
    widen(n);
    // offset o = j - i of this prompt sits at column o + longest_ - 1; n - |o| queries have it
    const std::size_t w = 2 * longest_ - 1, at = longest_ - n, own = 2 * n - 1;
    for (std::size_t k = 0; k < own; ++k) {
        const double count = static_cast<double>(n - (k < n ? n - 1 - k : k - (n - 1)));
        offset_counts_[at + k] += count;
        for (std::size_t r = 0; r < offset_rows_; ++r)
            offset_sums_[r * w + at + k] += count * s.offsets()[r * own + k];
    }
    ++prompts_;
}

std::vector<model::HeadStats> PooledSummaries::head_stats() const {
    std::vector<model::HeadStats> out = stat_sums_;
    for (model::HeadStats& t : out) {
        t.entropy /= queries_;
        t.distance /= queries_;
        t.first /= queries_;
        t.self /= queries_;
        t.previous = previous_queries_ > 0 ? t.previous / previous_queries_ : 0.0;
    }
    return out;
}

std::vector<double> PooledSummaries::offsets() const {
    std::vector<double> out = offset_sums_;
    const std::size_t w = offset_counts_.size();
    for (std::size_t r = 0; r < offset_rows_; ++r)
        for (std::size_t k = 0; k < w; ++k)
            out[r * w + k] = offset_counts_[k] > 0 ? out[r * w + k] / offset_counts_[k] : 0.0;
    return out;
}

}  // namespace attn
