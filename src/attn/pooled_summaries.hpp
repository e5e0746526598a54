// Summaries of many prompts pooled into one: each prompt's per-head means (model::HeadStats,
// offsets) weighted by the queries they average, so the result is the mean over every
// (prompt, query) pair, as if all the prompts' queries were one set:
//   entropy, distance, first, self = sum_p n_p m_p / sum_p n_p
//   previous                       = sum_p (n_p - 1) m_p / sum_p (n_p - 1)   (0 when no pair)
//   offsets[o], o = -(N - 1) .. N - 1, N the longest prompt's n:
//                                    sum_p c_p(o) m_p(o) / sum_p c_p(o),  c_p(o) = max(0, n_p -
//                                    |o|) (0 where no prompt has the offset)
// Memory: (heads) x (2N - 1) sums and 2N - 1 counts, whatever the number of prompts.
#pragma once

#include <cstddef>
#include <vector>

#include "attn/model/summaries.hpp"

namespace attn {

class PooledSummaries {
  public:
    /// Adds one prompt's summaries (head_stats and offsets as it holds them; every prompt the
    /// same heads in the same order, else std::invalid_argument).
    void add(const model::AttentionSummaries& s);

    std::size_t prompts() const { return prompts_; }
    /// The longest prompt's n (0 before any).
    std::size_t longest() const { return longest_; }
    /// One row per head, as each prompt's head_stats (empty unless they hold head_stats).
    std::vector<model::HeadStats> head_stats() const;
    /// (heads) x (2 longest() - 1), row-major (empty unless the prompts hold offsets).
    std::vector<double> offsets() const;

  private:
    void widen(std::size_t n);  // the offsets' sums and counts to 2n - 1 columns

    std::size_t prompts_ = 0, longest_ = 0;
    double queries_ = 0, previous_queries_ = 0;
    std::vector<model::HeadStats> stat_sums_;
    std::size_t offset_rows_ = 0;
    std::vector<double> offset_sums_;    // offset_rows_ x (2 longest_ - 1)
    std::vector<double> offset_counts_;  // 2 longest_ - 1
};

}  // namespace attn
