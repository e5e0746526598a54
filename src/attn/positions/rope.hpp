// Rotary position embedding (RoFormer, Su et al. 2021) with Hugging Face's definitions
// (transformers' modeling_rope_utils.py), every value evaluated exactly and rounded once.
//
// Head dimension d (even), h = d/2 frequencies, base b (rope_theta), F = factor,
// M = original_max_position_embeddings:
//   default    inv_freq[j] = f_j = b^(-2j/d),  j < h
//   linear     f_j / F
//   dynamic    with L = start + n (no state between calls): if L > M the base becomes
//              b' = b ((F L / M) - (F - 1))^(d / (d - 2)), then b'^(-2j/d)
//   yarn       low = max(floor(c(beta_fast)), 0), high = min(ceil(c(beta_slow)), d - 1),
//              c(beta) = d ln(M / (2 pi beta)) / (2 ln b) (no floor/ceil when truncate is
//              false); (high += 0.001 if low == high)
//              ramp_j = clamp((j - low) / (high - low), 0, 1);
//              inv_freq[j] = (f_j / F) ramp_j + f_j (1 - ramp_j);
//              attention factor A multiplies cos and sin: attention_factor if given, else
//              g(F, mscale) / g(F, mscale_all_dim) when both are given and non-zero, else
//              g(F, 1), with g(s, m) = 0.1 m ln s + 1 (1 for s <= 1).
//   longrope   e = long_factor if start + n > M, else short_factor (d/2 each):
//              inv_freq[j] = f_j / e_j; A = attention_factor if given, else 1 for F <= 1,
//              else sqrt(1 + ln F / ln M).
//   llama3     wavelength w_j = 2 pi / f_j; w_j < M / high_freq_factor: f_j;
//              w_j > M / low_freq_factor: f_j / F; otherwise, with
//              s = (M / w_j - low_freq_factor) / (high_freq_factor - low_freq_factor):
//              (1 - s) f_j / F + s f_j.
// angles[i, j] = (start + i) inv_freq[j]   (n x h)
// cos, sin (n x d): A cos/sin(angles) laid out as
//   split        [a0 .. a(h-1), a0 .. a(h-1)]       (Hugging Face's rotate_half)
//   interleaved  [a0 a0 a1 a1 ...]                  (RoFormer, GPT-J, Meta's Llama)
// rotate: each pair (a, b) -> (a cos - b sin, b cos + a sin); the pair of angle k is
//   (x_k, x_{k+h}) in the split layout, (x_{2k}, x_{2k+1}) in the interleaved one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/positions/angle.hpp"
#include "attn/positions/layout.hpp"
#include "attn/positions/sincos_rows.hpp"

namespace attn::positions {

enum class RopeScaling { none, linear, dynamic, yarn, llama3, longrope };

/// Hugging Face's rope_scaling dictionary, by its key names. Required: factor for every type
/// but none; original_max_position_embeddings for dynamic, yarn, llama3, longrope;
/// low_freq_factor and high_freq_factor for llama3; short_factor and long_factor for
/// longrope. Optional: beta_fast (default 32), beta_slow (default 1), mscale, mscale_all_dim
/// and truncate for yarn; attention_factor for yarn and longrope. d is the rotated width: the
/// first d dimensions of a head when a family rotates part of it (partial_rotary_factor).
struct RopeParameters {
    std::size_t d = 0;
    double base = 10000.0;
    RopeScaling scaling = RopeScaling::none;
    std::optional<double> factor;
    std::optional<double> original_max_position_embeddings;
    std::optional<double> low_freq_factor, high_freq_factor;
    std::optional<double> beta_fast, beta_slow;
    std::optional<double> attention_factor;
    std::optional<double> mscale, mscale_all_dim;
    bool truncate = true;
    std::vector<double> short_factor, long_factor;
};

/// Throws ParameterError (parameter_error.hpp) naming the parameter ("d", "base",
/// "factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor",
/// "beta_fast", "beta_slow", "attention_factor", "mscale", "mscale_all_dim", "truncate",
/// "short_factor", "long_factor"), then what is wrong and the accepted values: d odd or < 2
/// (< 4 for dynamic, whose exponent is d/(d-2)); base not finite or <= 1; a required
/// parameter missing; a parameter the type does not use; factor not finite or <= 0; M not
/// finite or < 1 (<= 1 for longrope, whose A divides by ln M); llama3 with low_freq_factor <=
/// 0 or high <= low; yarn betas <= 0; attention_factor <= 0; mscale or mscale_all_dim < 0;
/// short_factor or long_factor not d/2 finite numbers above 0.
void validate(const RopeParameters& p);

/// The name Hugging Face gives a scaling type ("default" for none, "linear", ...).
const char* scaling_name(RopeScaling s);

class Rope {
  public:
    /// Validates p; start and n are the positions this Rope will serve (dynamic's L = start + n).
    Rope(const RopeParameters& p, std::int64_t start, std::size_t n);

    std::size_t dim() const { return d_; }
    /// inv_freq (d/2) to about 106 bits, and rounded once to double.
    const std::vector<DoubleDouble>& inv_freq_exact() const { return inv_freq_; }
    std::vector<double> inv_freq() const;
    /// The attention factor A of yarn and longrope (rounded once), 1 for the other types.
    double attention_factor() const { return to_double(attention_); }
    const DoubleDouble& attention_factor_exact() const { return attention_; }
    /// The base after dynamic scaling (b for the other types), rounded once.
    double effective_base() const { return effective_base_; }

    /// Rows per call of cos_sin / rotate.
    std::size_t block_rows() const { return rows_.block_rows(); }

    /// angles[k, j] = (first + k) inv_freq[j], count x d/2, each rounded once.
    void angles(std::int64_t first, std::size_t count, double* out) const;
    /// cos and sin (count x d each, layout as above), count <= block_rows().
    void cos_sin(std::int64_t first, std::size_t count, Layout layout, double* cos,
                 double* sin) const;
    /// out = x rotated, both count x d rows of positions first.., count <= block_rows(); out may
    /// be x. Each output a * c - b * s is computed with exact products from the rounded c, s and
    /// rounded once.
    void rotate(std::int64_t first, std::size_t count, Layout layout, const double* x,
                double* out) const;

    /// X of shape (batch, n, d) (batch 1 for n x d), rows at positions start .. start+n-1 in
    /// every batch item, rotated into out (same shape; out may be x), block by block.
    void rotate_all(std::int64_t start, std::size_t batch, std::size_t n, Layout layout,
                    const double* x, double* out) const;

  private:
    struct Derived;  // inv_freq, attention factor and base, computed in quad precision
    static Derived derive(const RopeParameters& p, std::int64_t start, std::size_t n);
    Rope(Derived&& derived, std::size_t d);

    std::size_t d_;
    std::vector<DoubleDouble> inv_freq_;
    DoubleDouble attention_;
    double effective_base_;
    SinCosRows rows_;
};

}  // namespace attn::positions
