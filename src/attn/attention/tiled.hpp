// Fused, tiled scaled dot-product attention (FlashAttention's forward, Dao et al. 2022):
// the context softmax(s) V computed tile by tile with an online softmax, so that no n_q x n_k
// matrix is ever held; and a row-block producer of the scores and weights for callers that
// stream them.
//
// Shapes (row-major, row stride >= columns, so a head's column block of a wider matrix is a
// valid view): Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v), context (n_q, d_v).
//
//   raw[i, j]    = sum_c Q[i, c] K[j, c]                                  (Q K^T)
//   score[i, j]  = scale * raw[i, j] + bias(i, j),  scale = 1/sqrt(d_k) unless given
//   bias(i, j)   = -slope |i - j| (ALiBi, Press et al. 2022) + the callback's table (e.g. T5)
//   masked(i, j) = score[i, j] unless key j is hidden from query i (causal: j > i; valid
//                  length L: j >= L), in which case -inf, or `fill` when given (d2l's -1e6)
//   weight[i, :] = softmax(masked[i, :]);  a row with every key hidden and no fill is all 0
//   context[i,:] = sum_j weight[i, j] V[j, :]
// These are attn::scaled_dot_product_attention's weights and context (attention/reference.hpp,
// MaskOptions), to rounding: exp is a polynomial (about 1 ulp), sums run in another order.
//
// Online softmax over key tiles t (per query row), in base 2 with L = log2(e): a reference m
// (log2 units) raised to max_t(s) L only when a score exceeds it by more than 8 (so weights
// stay below 2^8), alpha = 2^(m_old - m), l = alpha l + sum_t 2^(s L - m),
// O = alpha O + 2^(s_t L - m) V_t; context = O / l (0 if l = 0).
// Causal masks skip the key tiles wholly above the diagonal; a valid length stops at key L.
//
// Threads: query tiles are spread over attn::parallel_for. Tile boundaries are fixed
// multiples of the tile height, and each tile is computed by the same instructions whichever
// thread runs it, so results are bit-identical for every thread count. The instruction set is
// chosen at run time (AVX-512, AVX2+FMA, or portable C++); results differ between instruction
// sets by rounding only.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace attn {

/// A read-only row-major matrix view: element (r, c) at data[r * stride + c].
template <class T>
struct MatrixRef {
    const T* data = nullptr;
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::size_t stride = 0;  // elements between rows, >= cols
};

/// Masks and scaling (the formulas above).
struct TiledOptions {
    std::optional<double> scale;           // nullopt: 1/sqrt(d_k); 1.0 for "no scaling"
    bool causal = false;                   // key j hidden from query i when j > i
    std::optional<std::size_t> valid_len;  // keys j >= L hidden from every query
    std::optional<double> fill;  // nullopt: hidden weights exactly 0; else masked score value
    /// Called after each query tile of context() with its rows (times the heads of a group),
    /// from the thread that computed it: several threads may call it at once. May be empty.
    std::function<void(std::size_t rows)> progress;
};

/// Tile callback: adds bias(row0 + r, col0 + c) to tile[r * stride + c] for r < rows,
/// c < cols. Called concurrently from several threads on disjoint tiles.
template <class T>
using BiasTile = std::function<void(std::size_t row0, std::size_t col0, std::size_t rows,
                                    std::size_t cols, T* tile, std::size_t stride)>;

/// Additive bias of the scaled scores, before masking. Any of the parts may be given.
template <class T>
struct AttentionBias {
    std::optional<double> alibi_slope;  // adds -slope * |i - j|
    BiasTile<T> add;                    // adds any table
    // adds relative[j - i], j - i from -(n_q - 1) to n_k - 1: a table of the offset, e.g. T5's
    // buckets looked up for one head
    const T* relative = nullptr;
};

/// context (n_q, d_v) = softmax(masked scores) V, written to out[i * out_stride + c].
/// Throws std::invalid_argument if d_k differs between Q and K, V's rows differ from K's,
/// d_k is 0, or a stride is smaller than its row.
template <class T>
void tiled_attention(MatrixRef<T> q, MatrixRef<T> k, MatrixRef<T> v, T* out, std::size_t out_stride,
                     const TiledOptions& options = {}, const AttentionBias<T>& bias = {});

/// The same on owning tensors: returns the context (n_q, d_v).
template <class T>
xt::xtensor<T, 2> tiled_attention(const xt::xtensor<T, 2>& q, const xt::xtensor<T, 2>& k,
                                  const xt::xtensor<T, 2>& v, const TiledOptions& options = {},
                                  const AttentionBias<T>& bias = {});

/// Grouped-query attention (Llama's num_key_value_heads): the query heads q[h], all of the
/// same shape, share one K and V, and head h's context (n_q, d_v) goes to out[h][i *
/// out_stride + c]. Each key tile is packed once and read by every head of the group while
/// it is in cache. The same bits as tiled_attention per head. The options and the bias are
/// shared by the heads (a per-head bias, e.g. ALiBi's slopes, calls tiled_attention per
/// head). Only context rows [row0, row0 + rows) when given (out[h] is still the whole
/// context's first row): the same bits as one call when row0 is a multiple of
/// TiledAttention::tile_rows() for these shapes. Throws std::invalid_argument as tiled_attention,
/// or if q is empty, the heads' shapes differ, out has another size or the rows lie beyond Q.
template <class T>
void tiled_attention_group(const std::vector<MatrixRef<T>>& q, MatrixRef<T> k, MatrixRef<T> v,
                           const std::vector<T*>& out, std::size_t out_stride,
                           const TiledOptions& options = {}, const AttentionBias<T>& bias = {},
                           std::size_t row0 = 0, std::optional<std::size_t> rows = {});

/// Values per row the kernels in use hold for d_v-wide values: 0 when they read V in place (d_v
/// a multiple of their vector width), else d_v padded to it (their own padded copy of V).
template <class T>
std::size_t tiled_value_copy(std::size_t d_v);

/// Elements of T in each thread's workspace of context() (S and P of a query tile, and per head
/// O, m and l) over n_q query rows of d_v-wide values, `heads` query heads at once
/// (tiled_attention_group; 1 for TiledAttention).
template <class T>
std::size_t tiled_workspace(std::size_t n_q, std::size_t d_v, std::size_t heads);

/// Where TiledAttention::rows writes full rows (n_k columns each): row r of the block at
/// pointer[r * stride]. A null pointer is not computed.
template <class T>
struct ScoreRows {
    T* raw = nullptr;      // Q K^T (AttentionResult::scores, omega)
    T* scores = nullptr;   // scale * raw + bias
    T* masked = nullptr;   // scores with hidden keys = fill or -inf
    T* weights = nullptr;  // softmax of masked; rows sum to 1 (or are all 0)
    std::size_t stride = 0;
};

/// One attention problem prepared once (K transposed into key tiles, and V copied with padded
/// rows when d_v is not a multiple of the vector width: O(n_k (d_k + d_v)) memory), then
/// computed whole or a row block at a time. Q, K and V must outlive it;
/// V may be an empty view ({}) when only rows() is wanted. The instruction set is the one
/// selected when it is made. Throws std::invalid_argument as tiled_attention.
template <class T>
class TiledAttention {
  public:
    TiledAttention(MatrixRef<T> q, MatrixRef<T> k, MatrixRef<T> v, const TiledOptions& options = {},
                   AttentionBias<T> bias = {});
    ~TiledAttention();
    TiledAttention(TiledAttention&&) noexcept;
    TiledAttention& operator=(TiledAttention&&) noexcept;

    /// context (n_q, d_v) into out[i * out_stride + c], threads over query tiles.
    void context(T* out, std::size_t out_stride) const;
    /// Only context rows [row0, row0 + rows), written to out[i * out_stride + c] for those i
    /// (out is the whole context's first row): context() a part at a time. The same bits as
    /// context() when row0 is a multiple of tile_rows().
    /// Throws std::invalid_argument beyond n_q.
    void context(std::size_t row0, std::size_t rows, T* out, std::size_t out_stride) const;
    /// Query rows per tile of the kernels in use.
    std::size_t tile_rows() const;
    /// ScoreRows of rows [row0, row0 + rows); throws std::invalid_argument beyond n_q.
    void rows(std::size_t row0, std::size_t rows, const ScoreRows<T>& out) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// x[i] = exp(x[i]) with the kernels' polynomial (within 2 ulp for float and double; 0 below
/// the smallest normal result, e.g. for -inf). Exposed for its accuracy test.
template <class T>
void tiled_exp(T* x, std::size_t n);

/// The instruction set the kernels use: "avx512", "avx2" or "portable".
std::string tiled_kernel();
/// Chooses the kernels' instruction set (tests compare them); "" or "auto" = the best this
/// CPU supports. Returns false, changing nothing, if the CPU lacks it or the name is unknown.
bool select_tiled_kernel(const std::string& name);

namespace tiled_detail {

/// One attention problem as the kernels see it: K and V packed by the driver.
template <class T>
struct Problem {
    const T* q;  // (n_q, d_k), row stride q_stride
    std::size_t q_stride;
    const T* kt;  // key tile t at kt + t * d_k * bk: K^T (d_k, bk), zero padded, stored as
                  // bk / panel column panels (d_k, panel), each contiguous (no cache-set
                  // conflicts between its rows)
    const T* v;   // (n_k, dv_pad) with row stride v_stride: V itself when d_v is a multiple of
                  // the vector width, else a zero-padded copy
    std::size_t v_stride;
    std::size_t n_q, n_k, d_k, d_v, dv_pad, bq, bk;
    T scale;
    bool causal;
    std::size_t valid_len;  // n_k when none
    bool has_fill;
    T fill;
    bool has_alibi;
    T alibi_slope;
    const T* relative;  // AttentionBias::relative
    void (*bias)(const void* ctx, std::size_t row0, std::size_t col0, std::size_t rows,
                 std::size_t cols, T* tile, std::size_t stride);  // null: none
    const void* bias_ctx;
};

/// One instruction set's kernels.
template <class T>
struct Kernels {
    const char* name;
    std::size_t width;   // elements per vector: K tiles and V rows are padded to it
    std::size_t panel;   // keys per column panel of a packed key tile (divides bk)
    std::size_t bq, bk;  // query rows per tile (half of bq below 16 bq rows, a quarter below 8
                         // bq), keys per tile
    /// elements of work for a query tile of `heads` query heads
    std::size_t (*workspace)(std::size_t bq, std::size_t bk, std::size_t dv_pad, std::size_t heads);
    /// context rows [i0, i0 + rows), rows <= bq
    void (*query_tile)(const Problem<T>& p, std::size_t i0, std::size_t rows, T* work, T* out,
                       std::size_t out_stride);
    /// the same for the query heads ps[0..heads) of one key/value group, each key tile read
    /// by all of them in turn; head h's context into out[h]
    void (*query_tile_group)(const Problem<T>* ps, std::size_t heads, std::size_t i0,
                             std::size_t rows, T* work, T* const* out, std::size_t out_stride);
    /// ScoreRows of rows [i0, i0 + rows), rows <= bq; row r of out at offset r * stride
    void (*score_rows)(const Problem<T>& p, std::size_t i0, std::size_t rows, T* work,
                       const ScoreRows<T>& out);
    void (*exp)(T* x, std::size_t n);
};

const Kernels<float>* avx512_float();
const Kernels<double>* avx512_double();
const Kernels<float>* avx2_float();
const Kernels<double>* avx2_double();

}  // namespace tiled_detail

}  // namespace attn
