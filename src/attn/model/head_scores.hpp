// What each attention head does, scored over any number of prompts (`attn heads`). A head's
// weights A (n x n, row i = query i, column j = key j) arrive one prompt at a time, in row
// blocks, beside the prompt's ids t; HeadSums keeps sums and counts only, so the scores of many
// prompts (or of shards merged with +=) are ratios of sums.
//
// Patterns D (0/1, n x n), as TransformerLens's head detector builds them:
//   previous   D[i,j] = 1 for j = i - 1
//   duplicate  D[i,j] = 1 for j < i with t_j = t_i
//   induction  D[i,j] = 1 for 1 <= j <= i with t_(j-1) = t_i (so j - 1 < i)
// Exclusions remove column 0 (bos) and the diagonal (self) from A and D.
//   rows  = sum over prompts and the queries whose (excluded) row of D holds a 1 of
//           sum_j A[i,j] D[i,j], divided by the number of those queries (none: NaN)
//   mul   = mean over prompts of sum A*D / sum A          (A with its exclusions zeroed)
//   abs   = mean over prompts of 1 - sum |A - D| / n      (|A - D| with them zeroed)
// The other scores are means over the queries that see at least two keys (causal: i >= 1;
// bidirectional: every query when n >= 2):
//   sink = A[i,0], self = A[i,i], entropy = -sum_j A[i,j] ln A[i,j] (nats, 0 ln 0 = 0),
//   offset = the most frequent argmax offset j* - i (j* the smallest index of the row's largest
//   weight, or of its first NaN, as numpy's argmax; ties between offsets: the smaller |offset|,
//   then the negative one),
// A NaN weight is never made a number: every score summing it is NaN (entropy too).
//   positional = the fraction of those queries whose argmax is at offset.
// type: the largest of previous, duplicate, induction (rows, no exclusion), sink, self, NaN
// left out, the first in that order on ties, if >= 0.5; else "positional" if positional >= 0.9;
// else "".
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace attn::model {

/// previous, duplicate, induction: index into the pattern arrays.
inline constexpr std::size_t kPatterns = 3;
inline constexpr std::array<const char*, kPatterns> kPatternNames{"previous", "duplicate",
                                                                  "induction"};

struct Exclusions {
    bool bos = false;   // column 0
    bool self = false;  // the diagonal
    bool operator==(const Exclusions&) const = default;
};

/// One head's sums over the prompts added so far. Merging two is +=, exact up to the order of
/// the double sums.
struct HeadSums {
    std::array<double, kPatterns> rows{};  // sum of sum_j A D over the counted queries
    std::array<std::uint64_t, kPatterns> rows_queries{};
    std::array<double, kPatterns> plain{};  // the same without exclusions (for type)
    std::array<std::uint64_t, kPatterns> plain_queries{};
    std::array<double, kPatterns> mul{};  // sum over prompts of sum A*D / sum A
    std::array<double, kPatterns> abs{};  // sum over prompts of 1 - sum |A - D| / n
    std::uint64_t prompts = 0;
    double sink = 0, self = 0, entropy = 0;  // sums over the queries seeing >= 2 keys
    std::uint64_t queries = 0;
    /// argmax[o + reach]: queries whose argmax offset is o, o = -reach .. reach (size 2 reach + 1,
    /// reach = the longest prompt's n - 1; empty before any query).
    std::vector<std::uint64_t> argmax;

    std::size_t reach() const { return argmax.empty() ? 0 : (argmax.size() - 1) / 2; }
    /// Widens argmax to reach r (never narrows).
    void widen(std::size_t r);
    HeadSums& operator+=(const HeadSums& other);
};

/// One prompt's rows of one head, added to a HeadSums:
///   PromptHeadScorer s(ids, causal, ex);  s.add_rows(0, k, w, n); ...;  s.finish(sums);
/// Rows arrive in order, each block starting where the last ended; finish() after all n.
/// ids: the prompt's n token ids (n >= 1), held by reference until finish().
class PromptHeadScorer {
  public:
    PromptHeadScorer(std::span<const std::int64_t> ids, bool causal, Exclusions ex);
    /// Rows [row0, row0 + rows) of A, row r at w + (r - row0) * stride (n values each).
    /// std::invalid_argument for a row0 other than the next row, or rows past n.
    void add_rows(std::size_t row0, std::size_t rows, const float* w, std::size_t stride);
    void add_rows(std::size_t row0, std::size_t rows, const double* w, std::size_t stride);
    /// Adds the prompt to sums and starts again at row 0 (the same ids, another head).
    /// std::invalid_argument unless all n rows were added.
    void finish(HeadSums& sums);

  private:
    template <class T>
    void add(std::size_t row0, std::size_t rows, const T* w, std::size_t stride);

    std::span<const std::int64_t> t_;
    bool causal_;
    Exclusions ex_;
    std::size_t next_ = 0;  // the next row expected
    HeadSums prompt_;       // this prompt's rows and stats (prompts, mul, abs left 0)
    std::array<double, kPatterns> sum_ad_{}, sum_abs_{};  // sum A*D and sum |A - D| (excluded)
    double sum_a_ = 0;                                    // sum A (excluded)
    std::vector<std::size_t> keys_;                       // a row's pattern keys
};

enum class Measure { rows, mul, abs };

struct HeadScores {
    std::array<double, kPatterns> pattern{};  // previous, duplicate, induction by the measure
    double sink = 0, self = 0, entropy = 0;
    std::int64_t offset = 0;
    double positional = 0;
    std::string type;
};

/// The scores of sums, the patterns by `measure` (NaN where nothing was counted).
HeadScores head_scores(const HeadSums& sums, Measure measure);

/// The type label of sums (the rule above; independent of the measure and exclusions).
std::string head_type(const HeadSums& sums);

/// The percent of heads whose sink is above 0.3 (NaN for no heads).
double sink_rate(std::span<const HeadScores> heads);

}  // namespace attn::model
