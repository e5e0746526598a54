// How far two runs' attention weights, hidden states and next-token distributions are apart
// (attn compare): the same ids through model A and model B (another checkpoint with A's
// tokenizer, a quantized file of A, or A in another dtype). Everything is computed in double.
//   p, q     rows of n weights (a query's attention over its keys), each summing to 1 or all 0
//   m        (p + q) / 2
//   JS(p, q) = KL(p || m) / 2 + KL(q || m) / 2, in nats, 0 log 0 = 0; 0 <= JS <= log 2
//   KL(p || q) = sum_j p_j log(p_j / q_j), +inf where q_j = 0 < p_j
//   argmax   the smallest index of the largest value (numpy's argmax)
// A NaN is never turned into a number (a forward that meets one gives NaN rows), the figures
// are numpy's of these definitions:
//   a term x log(x / y) is 0 only where x = 0 and y is a number, so a NaN anywhere in p or q
//   makes JS and KL NaN (NaN beats +inf: inf + nan = nan)
//   argmax   of a row holding a NaN: the index of its first NaN (numpy's argmax), so two
//            all-NaN rows agree on top-1 (index 0) and an all-NaN row against a finite one
//            agrees only where the finite row's argmax is 0
//   max      NaN when any value is (numpy's max and maximum; std::max(x, NaN) would keep x)
#pragma once

#include <cstddef>
#include <vector>

namespace attn {

/// JS(p, q) of two rows of n values, in nats.
double js_divergence(const double* p, const double* q, std::size_t n);

/// KL(p || q) of two distributions of n values, in nats (+inf when q_j = 0 < p_j).
double kl_divergence(const double* p, const double* q, std::size_t n);

/// The smallest index of the largest of n values (n > 0); the first NaN's when one is NaN.
std::size_t argmax(const double* v, std::size_t n);

/// The larger of a and b; NaN when either is (numpy's maximum).
double max_nan(double a, double b);

/// One head's weights of A and B reduced over their query rows, a block of rows at a time:
///   js      mean over the queries of JS(A_i, B_i)
///   top1    fraction of the queries with argmax A_i = argmax B_i
///   max_abs max over i, j of |A_ij - B_ij|
class HeadDivergence {
  public:
    /// rows query rows of n keys each: a[r * stride + j], b[r * stride + j].
    void add_rows(const double* a, const double* b, std::size_t rows, std::size_t n,
                  std::size_t stride);
    std::size_t queries() const { return queries_; }
    /// NaN before any row.
    double js() const;
    double top1() const;
    double max_abs() const { return max_abs_; }

  private:
    double js_sum_ = 0;
    std::size_t same_ = 0, queries_ = 0;
    double max_abs_ = 0;
};

/// Several prompts' divergences of one head: js and top1 the mean of the prompts' values (each
/// prompt counts once, whatever its length), max_abs their maximum.
struct PooledDivergence {
    double js_sum = 0, top1_sum = 0, max_abs = 0;
    std::size_t prompts = 0;
    void add(const HeadDivergence& d);
    /// NaN before any prompt.
    double js() const;
    double top1() const;
};

/// max_i |a_i - b_i| / max_i |a_i| over count values (0 when a and b are both all 0; +inf when
/// only a is; NaN when a or b holds a NaN).
double relative_max_difference(const double* a, const double* b, std::size_t count);

/// B's next-token distribution against A's: kl = KL(p_A || p_B), and whether both put their
/// largest probability on the same id (argmax).
struct NextDivergence {
    double kl = 0;
    bool same_top1 = false;
};
NextDivergence next_divergence(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace attn
