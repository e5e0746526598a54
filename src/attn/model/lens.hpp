// The logit lens (nostalgebraist 2020): each selected layer's residual h_l (n, d) read through
// the model's own final steps and unembedding, softmax(unembed(final_norm(h_l))) (n, V). The
// logits come in blocks of vocabulary rows (count, V) and are reduced as they arrive, so no
// n x V array is held: per row the top K (id, logit), the running maximum and sum of
// exp(logit - maximum) (the log-sum-exp), and the logit of one target id.
//
//   p[r, v] = exp(logit[r, v] - m_r) / s_r,  m_r = max_v logit[r, v],
//   s_r = sum_v exp(logit[r, v] - m_r)        (double, from T's logits, as `next`)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace attn::model {

/// One layer's lens over `rows` rows: the top K ids by probability (ties by the smaller id,
/// NaN last) and their probabilities, and the probability of each row's target.
struct LensRows {
    std::size_t rows = 0, top = 0;
    std::vector<std::size_t> ids;       // rows x top, likeliest first
    std::vector<double> probabilities;  // rows x top
    std::vector<double> target;         // rows: p[r, targets[r]] (NaN where no target)
};

/// Reduces blocks of logits (rows x count, row-major, vocabulary ids v0 .. v0 + count - 1)
/// into LensRows; blocks arrive in any order, each id once.
class LensScan {
  public:
    /// top K (clipped to vocab), targets: one id per row, or -1 for none.
    LensScan(std::size_t rows, std::size_t top, std::size_t vocab,
             std::vector<std::int64_t> targets);
    template <class T>
    void add(const T* logits, std::size_t v0, std::size_t count);
    LensRows finish() const;

  private:
    template <class T>
    void add_row(std::size_t r, const T* logits, std::size_t v0, std::size_t count);
    struct Row {
        double max = -1.0 / 0.0, sum = 0;                 // the running log-sum-exp
        std::vector<std::pair<double, std::size_t>> top;  // (logit, id), a min-heap of top K
        double target = 0.0 / 0.0;                        // the target's logit
    };
    std::size_t top_;
    std::vector<std::int64_t> targets_;
    std::vector<Row> rows_;
};

}  // namespace attn::model
