// How positions enter attention: one scheme for a sequence of n positions, built from a
// library config whose fields are Hugging Face's config.json keys, used by `encode`, by
// `attend` and by the model families (attn/attention/layer.hpp calls it per layer).
//   none        the notebook (also the learned absolute tables of GPT-2 and BERT, which the
//               model adds to its embeddings before the first layer)
//   sinusoidal  the projections take X + P, P (n, hidden_size) at positions start..
//   rope        q and k of every head rotated by position after the projections (head_dim even)
//   alibi       head h's scores get -m_h |i - j| (Press et al.) or m_h j (BLOOM), unscaled,
//               added to the already scaled scores, before the masks
//   t5          head h's scores get table[bucket(j - i), h], before the masks
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/tiled.hpp"
#include "attn/positions/rope.hpp"
#include "attn/positions/scheme_kind.hpp"
#include "attn/positions/t5.hpp"

namespace attn::positions {

/// Which ALiBi bias: Press et al.'s -m_h |i - j| (attn's encode and attend), or BLOOM's
/// m_h j (the key's position; differs from the first by a per-row constant below the diagonal,
/// so the causal weights are the same).
enum class AlibiForm { distance, key_position };

/// What a scheme is made from. Names in comments are Hugging Face's config.json keys.
struct SchemeConfig {
    Scheme scheme = Scheme::none;
    std::int64_t start = 0;         // position of row 0 (sinusoidal, rope, alibi and t5 use 0)
    double base = 10000.0;          // sinusoidal's base; rope: rope_theta (copied into rope.base)
    Layout layout = Layout::split;  // rope: split (rotate_half) | interleaved; sinusoidal's P
    std::size_t hidden_size = 0;    // sinusoidal: P's width d_in
    RopeParameters rope;            // rope: d = head_dim, rope_scaling's keys
    std::size_t n_heads = 1;        // num_attention_heads: alibi slopes, t5 table columns
    AlibiForm alibi = AlibiForm::distance;
    T5Buckets buckets;  // relative_attention_num_buckets, relative_attention_max_distance,
                        // bidirectional = encoder
    xt::xtensor<double, 2> t5_table;  // (num_buckets, n_heads): relative_attention_bias.weight
};

/// One scheme serving positions start .. start + n - 1, in T (float or double) as the scores.
/// Immutable once made; cheap to share between threads.
template <class T>
class PositionScheme {
  public:
    PositionScheme() = default;  // Scheme::none
    /// Validates config: std::invalid_argument whose message begins with the key at fault
    /// ("head_dim", "rope_theta", "factor", "relative_attention_num_buckets", "t5_table", ...).
    PositionScheme(const SchemeConfig& config, std::size_t n);

    Scheme scheme() const { return scheme_; }
    std::size_t size() const { return n_; }
    const SchemeConfig& config() const;

    /// sinusoidal: x (rows, hidden_size) += P rows row0.., in T as torch adds them; else nothing.
    void add_positions(T* x, std::size_t row0, std::size_t rows, std::size_t stride) const;
    bool rotates() const { return scheme_ == Scheme::rope; }
    bool adds() const { return adds_to_x(scheme_); }  // P added to x
    /// rope: rows of m (rows, stride) rotated in place as positions start + row0 + r (exactly,
    /// rounded once to T): their first rope.d columns, the rest left as they are (partial
    /// rotary: a head of width stride >= rope.d); else nothing.
    void rotate(T* m, std::size_t row0, std::size_t rows, std::size_t stride) const;
    /// Head h's additive bias of the scaled scores (alibi's slope or a tile callback adding the
    /// BLOOM or T5 bias); empty for the other schemes. Valid while *this lives.
    AttentionBias<T> bias(std::size_t head) const;
    /// Whether bias() adds to the scaled scores: alibi and t5.
    bool biases() const { return scheme_ == Scheme::alibi || scheme_ == Scheme::t5; }

    /// What the scheme contributes, `--show positions`: sinusoidal P (n, hidden_size), rope's
    /// angles (n, d/2), alibi's or t5's bias (n_heads, n, n); {} for none.
    std::vector<std::size_t> positions_shape() const;
    /// Rows [row0, row0 + rows) of positions() flattened to 2-D (the bias as n_heads * n rows
    /// of n), into out (rows, last extent).
    void positions_rows(std::size_t row0, std::size_t rows, T* out) const;
    /// "sinusoidal P (base 10000, interleaved)", "rope angles (base 10000, split, scaling
    /// default)", ... for titles; "" for none.
    std::string description() const;

  private:
    struct Data;
    Scheme scheme_ = Scheme::none;
    std::size_t n_ = 0;
    std::shared_ptr<const Data> data_;
};

}  // namespace attn::positions
