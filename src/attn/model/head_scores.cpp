#include "attn/model/head_scores.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace attn::model {

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

double ratio(double sum, std::uint64_t count) {
    return count == 0 ? kNan : sum / static_cast<double>(count);
}

/// The keys of query i's row of pattern p, increasing (before exclusions).
void pattern_keys(std::size_t p, std::span<const std::int64_t> t, std::size_t i,
                  std::vector<std::size_t>& keys) {
    keys.clear();
    if (p == 0) {
        if (i >= 1) keys.push_back(i - 1);
    } else if (p == 1) {
        for (std::size_t j = 0; j < i; ++j)
            if (t[j] == t[i]) keys.push_back(j);
    } else {
        for (std::size_t j = 1; j <= i; ++j)
            if (t[j - 1] == t[i]) keys.push_back(j);
    }
}

}  // namespace

void HeadSums::widen(std::size_t r) {
    if (!argmax.empty() && r <= reach()) return;
    const std::size_t old = reach();
    std::vector<std::uint64_t> wide(2 * r + 1, 0);
    for (std::size_t k = 0; k < argmax.size(); ++k) wide[k + r - old] = argmax[k];
    argmax.swap(wide);
}

HeadSums& HeadSums::operator+=(const HeadSums& o) {
    for (std::size_t p = 0; p < kPatterns; ++p) {
        rows[p] += o.rows[p];
        rows_queries[p] += o.rows_queries[p];
        plain[p] += o.plain[p];
        plain_queries[p] += o.plain_queries[p];
        mul[p] += o.mul[p];
        abs[p] += o.abs[p];
    }
    prompts += o.prompts;
    sink += o.sink;
    self += o.self;
    entropy += o.entropy;
    queries += o.queries;
    if (!o.argmax.empty()) {
        widen(o.reach());
        const std::size_t shift = reach() - o.reach();
        for (std::size_t k = 0; k < o.argmax.size(); ++k) argmax[k + shift] += o.argmax[k];
    }
    return *this;
}

PromptHeadScorer::PromptHeadScorer(std::span<const std::int64_t> ids, bool causal, Exclusions ex)
    : t_(ids), causal_(causal), ex_(ex) {
    if (ids.empty()) throw std::invalid_argument("head scores: a prompt of 0 tokens");
    prompt_.widen(ids.size() - 1);
}

void PromptHeadScorer::add_rows(std::size_t row0, std::size_t rows, const float* w,
                                std::size_t stride) {
    add(row0, rows, w, stride);
}
void PromptHeadScorer::add_rows(std::size_t row0, std::size_t rows, const double* w,
                                std::size_t stride) {
    add(row0, rows, w, stride);
}

template <class T>
void PromptHeadScorer::add(std::size_t row0, std::size_t rows, const T* w, std::size_t stride) {
    const std::size_t n = t_.size();
    if (row0 != next_ || rows > n - row0)
        throw std::invalid_argument(
            fmt::format("head scores: rows {}..{} given, row {} of {} expected next", row0,
                        row0 + rows, next_, n));
    const std::size_t reach = n - 1;
    for (std::size_t r = 0; r < rows; ++r) {
        const std::size_t i = row0 + r;
        const T* a = w + r * stride;
        const auto kept = [&](std::size_t j) {
            return !(ex_.bos && j == 0) && !(ex_.self && j == i);
        };
        // the row's sum over the keys kept (mul's denominator, abs's |A - 0| terms)
        double row_a = 0;
        for (std::size_t j = 0; j < n; ++j)
            if (kept(j)) row_a += a[j];
        sum_a_ += row_a;
        for (std::size_t p = 0; p < kPatterns; ++p) {
            pattern_keys(p, t_, i, keys_);
            double plain = 0, excl = 0, excl_abs = 0;  // sum A over D, kept; sum |A - 1| - A
            bool any = false;
            for (const std::size_t j : keys_) {
                plain += a[j];
                if (!kept(j)) continue;
                any = true;
                excl += a[j];
                excl_abs += std::fabs(static_cast<double>(a[j]) - 1.0) - a[j];
            }
            if (!keys_.empty()) {
                prompt_.plain[p] += plain;
                ++prompt_.plain_queries[p];
            }
            if (any) {
                prompt_.rows[p] += excl;
                ++prompt_.rows_queries[p];
            }
            sum_ad_[p] += excl;
            sum_abs_[p] += row_a + excl_abs;
        }
        const std::size_t keys = causal_ ? i + 1 : n;
        if (keys < 2) continue;
        // a NaN weight makes the entropy NaN and is the row's argmax (numpy's: the first NaN)
        std::size_t best = 0;
        bool nan = false;
        double entropy = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const double v = a[j];
            if (!(v <= 0)) entropy -= v * std::log(v);
            if (!nan && (std::isnan(v) || a[j] > a[best])) best = j, nan = std::isnan(v);
        }
        prompt_.sink += a[0];
        prompt_.self += a[i];
        prompt_.entropy += entropy;
        ++prompt_.queries;
        ++prompt_.argmax[best + reach - i];
    }
    next_ += rows;
}

void PromptHeadScorer::finish(HeadSums& sums) {
    const std::size_t n = t_.size();
    if (next_ != n)
        throw std::invalid_argument(
            fmt::format("head scores: finish after {} of {} rows", next_, n));
    for (std::size_t p = 0; p < kPatterns; ++p) {
        prompt_.mul[p] = sum_ad_[p] / sum_a_;
        prompt_.abs[p] = 1.0 - sum_abs_[p] / static_cast<double>(n);
    }
    prompt_.prompts = 1;
    sums += prompt_;
    prompt_ = HeadSums{};
    prompt_.widen(n - 1);
    sum_ad_ = {};
    sum_abs_ = {};
    sum_a_ = 0;
    next_ = 0;
}

namespace {

/// The modal argmax offset (ties: the smaller |o|, then the negative o) and the fraction of the
/// queries at it (NaN for none).
std::pair<std::int64_t, double> modal_offset(const HeadSums& s) {
    const auto r = static_cast<std::int64_t>(s.reach());
    std::uint64_t most = 0;
    std::int64_t offset = 0;
    for (std::int64_t d = 0; d <= r && !s.argmax.empty(); ++d)
        for (const std::int64_t o : {-d, d}) {
            const std::uint64_t c = s.argmax[static_cast<std::size_t>(o + r)];
            if (c > most) {
                most = c;
                offset = o;
            }
        }
    return {offset, ratio(static_cast<double>(most), s.queries)};
}

}  // namespace

std::string head_type(const HeadSums& s) {
    const std::array<double, 5> score{
        ratio(s.plain[0], s.plain_queries[0]), ratio(s.plain[1], s.plain_queries[1]),
        ratio(s.plain[2], s.plain_queries[2]), ratio(s.sink, s.queries), ratio(s.self, s.queries)};
    static constexpr std::array<const char*, 5> kNames{"previous", "duplicate", "induction", "sink",
                                                       "self"};
    std::size_t best = score.size();
    for (std::size_t k = 0; k < score.size(); ++k)
        if (!std::isnan(score[k]) && (best == score.size() || score[k] > score[best])) best = k;
    if (best < score.size() && score[best] >= 0.5) return kNames[best];
    if (modal_offset(s).second >= 0.9) return "positional";
    return "";
}

HeadScores head_scores(const HeadSums& s, Measure measure) {
    HeadScores h;
    const double prompts = static_cast<double>(s.prompts);
    for (std::size_t p = 0; p < kPatterns; ++p) {
        switch (measure) {
            case Measure::rows:
                h.pattern[p] = ratio(s.rows[p], s.rows_queries[p]);
                break;
            case Measure::mul:
                h.pattern[p] = s.prompts ? s.mul[p] / prompts : kNan;
                break;
            case Measure::abs:
                h.pattern[p] = s.prompts ? s.abs[p] / prompts : kNan;
                break;
        }
    }
    h.sink = ratio(s.sink, s.queries);
    h.self = ratio(s.self, s.queries);
    h.entropy = ratio(s.entropy, s.queries);
    std::tie(h.offset, h.positional) = modal_offset(s);
    h.type = head_type(s);
    return h;
}

double sink_rate(std::span<const HeadScores> heads) {
    if (heads.empty()) return kNan;
    std::size_t above = 0;
    for (const HeadScores& h : heads)
        if (h.sink > 0.3) ++above;
    return 100.0 * static_cast<double>(above) / static_cast<double>(heads.size());
}

}  // namespace attn::model
