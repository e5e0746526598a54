#include "attn/model/summaries.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>

#include "runtime/memory_budget.hpp"

namespace attn::model {

namespace {

void check_block(std::size_t size, std::size_t n, const char* what) {
    if (n == 0) throw std::invalid_argument(fmt::format("{}: n = 0 tokens (at least 1)", what));
    if (size != n * n)
        throw std::invalid_argument(
            fmt::format("{}: {} weights given, n x n = {} expected", what, size, n * n));
}

template <class T>
HeadStats stats_of(std::size_t layer, std::size_t head, std::span<const T> w, std::size_t n) {
    check_block(w.size(), n, "head_stats");
    HeadStats s{layer, head, 0, 0, 0, 0, 0};
    for (std::size_t i = 0; i < n; ++i) {
        const T* row = w.data() + i * n;
        double entropy = 0, distance = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const double v = row[j];
            if (v > 0 || std::isnan(v)) entropy -= v * std::log(v);  // 0 log 0 = 0; NaN stays
            distance += v * static_cast<double>(i > j ? i - j : j - i);
        }
        s.entropy += entropy;
        s.distance += distance;
        s.first += row[0];
        s.self += row[i];
        if (i >= 1) s.previous += row[i - 1];
    }
    const double queries = static_cast<double>(n);
    s.entropy /= queries;
    s.distance /= queries;
    s.first /= queries;
    s.self /= queries;
    s.previous = n > 1 ? s.previous / static_cast<double>(n - 1) : 0.0;
    return s;
}

template <class T>
void profile_of(std::span<const T> w, std::size_t n, std::span<double> out) {
    check_block(w.size(), n, "offsets");
    if (out.size() != 2 * n - 1)
        throw std::invalid_argument(fmt::format(
            "offsets: output of {} values, 2n - 1 = {} expected", out.size(), 2 * n - 1));
    // Offset o = j - i sits at out[j - i + n - 1]; n - |o| queries have it.
    for (double& v : out) v = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) out[j + n - 1 - i] += w[i * n + j];
    for (std::size_t k = 0; k < out.size(); ++k) {
        const std::size_t distance = k >= n - 1 ? k - (n - 1) : (n - 1) - k;
        out[k] /= static_cast<double>(n - distance);
    }
}

}  // namespace

HeadStats head_stats(std::size_t layer, std::size_t head, std::span<const float> w, std::size_t n) {
    return stats_of(layer, head, w, n);
}
HeadStats head_stats(std::size_t layer, std::size_t head, std::span<const double> w,
                     std::size_t n) {
    return stats_of(layer, head, w, n);
}

void offset_profile(std::span<const float> w, std::size_t n, std::span<double> out) {
    profile_of(w, n, out);
}
void offset_profile(std::span<const double> w, std::size_t n, std::span<double> out) {
    profile_of(w, n, out);
}

AttentionSummaries::AttentionSummaries(std::size_t n, SummaryChoice choice)
    : n_(n), choice_(choice) {
    if (n == 0) throw std::invalid_argument("summaries: n = 0 tokens (at least 1)");
    if (choice_.rollout) {  // the identity: no layer yet
        rollout_.assign(n * n, 0.0);
        for (std::size_t i = 0; i < n; ++i) rollout_[i * n + i] = 1.0;
    }
}

void AttentionSummaries::add_head(std::size_t layer, std::size_t head, std::span<const float> w) {
    add(layer, head, w);
}
void AttentionSummaries::add_head(std::size_t layer, std::size_t head, std::span<const double> w) {
    add(layer, head, w);
}

template <class T>
void AttentionSummaries::add(std::size_t layer, std::size_t head, std::span<const T> w) {
    check_block(w.size(), n_, "summaries");
    open(layer);
    if (choice_.head_stats) stats_.push_back(stats_of(layer, head, w, n_));
    if (choice_.offsets) {
        offsets_.resize(offsets_.size() + 2 * n_ - 1);
        profile_of(w, n_, std::span<double>(offsets_).last(2 * n_ - 1));
    }
    if (choice_.mean_weights || choice_.rollout)
        for (std::size_t k = 0; k < n_ * n_; ++k) head_sum_[k] += w[k];
}

void AttentionSummaries::add_reduced(std::size_t layer, std::size_t head, const HeadStats& stats,
                                     std::span<const double> offsets) {
    if (choice_.mean_weights || choice_.rollout)
        throw std::invalid_argument("summaries: mean_weights and rollout need the weights");
    if (choice_.offsets && offsets.size() != 2 * n_ - 1)
        throw std::invalid_argument(fmt::format("summaries: {} offsets given, 2n - 1 = {} expected",
                                                offsets.size(), 2 * n_ - 1));
    open(layer);
    if (choice_.head_stats) {
        stats_.push_back(stats);
        stats_.back().layer = layer;
        stats_.back().head = head;
    }
    if (choice_.offsets) offsets_.insert(offsets_.end(), offsets.begin(), offsets.end());
}

void AttentionSummaries::open(std::size_t layer) {
    if (open_ && layer != open_layer_)
        throw std::invalid_argument(
            fmt::format("summaries: head of layer {} while layer {} is open (end_layer first)",
                        layer, open_layer_));
    if (!open_ && !layers_.empty() && layer <= layers_.back())
        throw std::invalid_argument(
            fmt::format("summaries: layer {} after layer {} (layers come in increasing order)",
                        layer, layers_.back()));
    if (!open_) {
        open_ = true;
        open_layer_ = layer;
        open_heads_ = 0;
        if (choice_.mean_weights || choice_.rollout) head_sum_.assign(n_ * n_, 0.0);
    }
    ++open_heads_;
}

void AttentionSummaries::end_layer() {
    if (!open_) throw std::invalid_argument("summaries: end_layer with no head added");
    open_ = false;
    layers_.push_back(open_layer_);
    if (!choice_.mean_weights && !choice_.rollout) return;
    const std::size_t n = n_;
    for (double& v : head_sum_) v /= static_cast<double>(open_heads_);  // now the mean
    if (choice_.mean_weights) means_.insert(means_.end(), head_sum_.begin(), head_sum_.end());
    if (!choice_.rollout) return;
    // A = rownorm(0.5 mean + 0.5 I) (n x n), then R <- A R: (n, n) x (n, n) -> (n, n).
    xt::xtensor<double, 2> a = xt::adapt(head_sum_, {n, n});
    for (std::size_t i = 0; i < n; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
            a(i, j) = 0.5 * a(i, j) + (i == j ? 0.5 : 0.0);
            sum += a(i, j);
        }
        for (std::size_t j = 0; j < n; ++j) a(i, j) /= sum;  // sum >= 0.5
    }
    const xt::xtensor<double, 2> r = xt::adapt(rollout_, {n, n});
    const xt::xtensor<double, 2> product = xt::linalg::dot(a, r);
    std::copy(product.begin(), product.end(), rollout_.begin());
}

std::uint64_t summaries_bytes(std::size_t n, std::size_t heads, std::size_t layers,
                              SummaryChoice c) {
    using runtime::checked_add;
    using runtime::checked_product;
    const char* what = "the attention summaries";
    const std::uint64_t square = checked_product({n, n, sizeof(double)}, what);  // one n x n
    std::uint64_t bytes = 0;
    if (c.head_stats) bytes = checked_product({layers, heads, sizeof(HeadStats)}, what);
    if (c.offsets)
        bytes =
            checked_add(bytes, checked_product({layers, heads, 2 * n, sizeof(double)}, what), what);
    if (c.mean_weights || c.rollout) bytes = checked_add(bytes, square, what);  // the head sum
    if (c.mean_weights) bytes = checked_add(bytes, checked_product({layers, square}, what), what);
    if (c.rollout)  // R, and while a layer closes A, R's copy, dot's result and A R
        bytes = checked_add(bytes, checked_product({5, square}, what), what);
    return bytes;
}

std::uint64_t run_summaries_bytes(const std::vector<SequenceShape>& sequences, std::size_t heads,
                                  std::size_t element) {
    using runtime::checked_add;
    std::uint64_t bytes = 0;
    for (const SequenceShape& s : sequences) {
        const std::uint64_t each = summaries_bytes(s.n, heads, 1, {true, true, true, true});
        bytes = checked_add(
            checked_add(
                bytes,
                runtime::checked_mul(std::max<std::size_t>(s.batch, 1), each, "the summaries"),
                "the attention"),
            runtime::checked_product({s.n, s.n, element}, "the summaries"), "the attention");
    }
    return bytes;
}

template <class T>
void add_layer(AttentionSummaries& summaries, std::size_t layer, const LayerResult<T>& result) {
    const std::size_t n = summaries.n();
    std::vector<T> w(n * n);  // one head's (n, n) weights
    for (std::size_t h = 0; h < result.queries.size(); ++h) {
        ScoreRows<T> rows;
        rows.weights = w.data();
        rows.stride = n;
        result.rows->rows(h, 0, n, rows);
        summaries.add_head(layer, h, std::span<const T>(w));
    }
    summaries.end_layer();
}

template void add_layer(AttentionSummaries&, std::size_t, const LayerResult<float>&);
template void add_layer(AttentionSummaries&, std::size_t, const LayerResult<double>&);

template <class T>
std::vector<AttentionSummaries> summarise_each(const std::vector<LayerResult<T>>& results,
                                               std::size_t n, SummaryChoice choice) {
    std::vector<AttentionSummaries> out;
    for (const LayerResult<T>& r : results) add_layer(out.emplace_back(n, choice), 0, r);
    return out;
}

template std::vector<AttentionSummaries> summarise_each(const std::vector<LayerResult<float>>&,
                                                        std::size_t, SummaryChoice);
template std::vector<AttentionSummaries> summarise_each(const std::vector<LayerResult<double>>&,
                                                        std::size_t, SummaryChoice);

}  // namespace attn::model
