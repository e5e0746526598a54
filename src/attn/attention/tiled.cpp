#include "attn/attention/tiled.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "attn/attention/tiled_nonfinite.hpp"
#include "runtime/parallel.hpp"

namespace attn {
namespace tiled_detail {
namespace {

// Portable kernels: plain arrays of W lanes that the compiler may vectorize for the baseline
// instruction set; fmadd is a * b + c (two roundings).
template <class T_, std::size_t W_>
struct Portable {
    using T = T_;
    struct reg {
        T v[W_];
    };
    static constexpr std::size_t W = W_;
    static constexpr int R = 4, NV = 2;
    template <class F>
    static reg map(F f) {
        reg r;
        for (std::size_t i = 0; i < W; ++i) r.v[i] = f(i);
        return r;
    }
    static reg zero() { return set1(T(0)); }
    static reg load(const T* p) {
        return map([&](std::size_t i) { return p[i]; });
    }
    static void store(T* p, reg x) { std::memcpy(p, x.v, sizeof x.v); }
    static reg set1(T x) {
        return map([&](std::size_t) { return x; });
    }
    static reg fmadd(reg a, reg b, reg c) {
        return map([&](std::size_t i) { return a.v[i] * b.v[i] + c.v[i]; });
    }
    static reg add(reg a, reg b) {
        return map([&](std::size_t i) { return a.v[i] + b.v[i]; });
    }
    static reg sub(reg a, reg b) {
        return map([&](std::size_t i) { return a.v[i] - b.v[i]; });
    }
    static reg mul(reg a, reg b) {
        return map([&](std::size_t i) { return a.v[i] * b.v[i]; });
    }
    static reg div(reg a, reg b) {
        return map([&](std::size_t i) { return a.v[i] / b.v[i]; });
    }
    static reg max(reg a, reg b) {
        return map([&](std::size_t i) { return a.v[i] > b.v[i] ? a.v[i] : b.v[i]; });
    }
    static reg min(reg a, reg b) {
        return map([&](std::size_t i) { return a.v[i] < b.v[i] ? a.v[i] : b.v[i]; });
    }
    static bool any_greater(reg a, reg b) {
        for (std::size_t i = 0; i < W; ++i)
            if (a.v[i] > b.v[i]) return true;
        return false;
    }
    static bool any_not_below(reg a, reg b) {
        for (std::size_t i = 0; i < W; ++i)
            if (!(a.v[i] < b.v[i])) return true;
        return false;
    }
    static T hmax(reg x) {
        T m = x.v[0];
        for (std::size_t i = 1; i < W; ++i) m = x.v[i] > m ? x.v[i] : m;
        return m;
    }
    static T hsum(reg x) {
        T s = x.v[0];
        for (std::size_t i = 1; i < W; ++i) s += x.v[i];
        return s;
    }
    static reg round(reg x) {
        return map([&](std::size_t i) { return std::nearbyint(x.v[i]); });
    }
    // n is converted only where x is in range (elsewhere it may be infinite or NaN).
    static reg ldexp_or_zero(reg x, reg lo, reg y, reg n) {
        return map([&](std::size_t i) {
            return x.v[i] < lo.v[i]   ? T(0)
                   : x.v[i] != x.v[i] ? x.v[i]
                                      : std::ldexp(y.v[i], static_cast<int>(n.v[i]));
        });
    }
};

#include "attn/attention/tiled_kernel.inc"

const Kernels<float>* portable_float() {
    return Kernel<Portable<float, 8>>::table("portable", 256, 128);
}
const Kernels<double>* portable_double() {
    return Kernel<Portable<double, 4>>::table("portable", 256, 128);
}

bool cpu_has(const std::string& name) {
    __builtin_cpu_init();
    if (name == "avx512") return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
    if (name == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return name == "portable";
}

std::string best_kernel() {
    for (const char* name : {"avx512", "avx2"})
        if (cpu_has(name)) return name;
    return "portable";
}

std::atomic<int> g_kernel{-1};  // 0 portable, 1 avx2, 2 avx512; -1 not chosen yet
const char* const kernel_names[] = {"portable", "avx2", "avx512"};

int kernel_index() {
    int k = g_kernel.load();
    if (k < 0) {
        const std::string best = best_kernel();
        k = best == "avx512" ? 2 : best == "avx2" ? 1 : 0;
        g_kernel.store(k);
    }
    return k;
}

template <class T>
const Kernels<T>* kernels() {
    const int k = kernel_index();
    if constexpr (std::is_same_v<T, float>)
        return k == 2 ? avx512_float() : k == 1 ? avx2_float() : portable_float();
    else
        return k == 2 ? avx512_double() : k == 1 ? avx2_double() : portable_double();
}

template <class T>
void call_bias(const void* ctx, std::size_t row0, std::size_t col0, std::size_t rows,
               std::size_t cols, T* tile, std::size_t stride) {
    (*static_cast<const BiasTile<T>*>(ctx))(row0, col0, rows, cols, tile, stride);
}

void check_view(const char* name, std::size_t cols, std::size_t stride) {
    if (stride < cols)
        throw std::invalid_argument(std::string("tiled attention: ") + name +
                                    "'s row stride is smaller than its row");
}

// K^T packed in key tiles (d_k, bk), V padded to (n_k, dv_pad) unless d_v is a multiple of
// the vector width, plus the problem.
template <class T>
struct Packed {
    std::vector<T> kt, v;
    Problem<T> p{};
    MatrixRef<T> k;                     // K as given (the non-finite scores' check reads it)
    std::vector<std::size_t> bad_keys;  // rows of K holding a NaN or inf, increasing
};

// Tall query tiles read each key tile from cache (or memory) for more query rows; below 16 of
// them half as tall, below 8 a quarter, so that threads still have tiles to share. A row's bits
// do not depend on the tile height.
template <class T>
std::size_t tile_rows(const Kernels<T>& ker, std::size_t n_q) {
    return n_q >= 16 * ker.bq ? ker.bq : n_q >= 8 * ker.bq ? ker.bq / 2 : ker.bq / 4;
}

// The query tiles of rows [row0, row0 + rows), bq tall, in the order threads take them from
// a shared counter: costliest first (the last rows first under a causal mask), and the last
// two per thread cut in quarters, so that the threads end within a quarter tile of each other
// (a tile at d = 128, n = 16,384 is 11 ms of one core). A row's bits depend neither on the
// tile's height nor on the order.
struct TileSpan {
    std::size_t i0, rows;
};

std::vector<TileSpan> tile_order(std::size_t row0, std::size_t rows, std::size_t bq, bool causal,
                                 std::size_t threads) {
    std::vector<TileSpan> whole;
    for (std::size_t i = 0; i < rows; i += bq) whole.push_back({row0 + i, std::min(bq, rows - i)});
    if (causal) std::reverse(whole.begin(), whole.end());
    if (threads < 2) return whole;
    const std::size_t cut = std::min(whole.size(), 2 * threads), quarter = (bq + 3) / 4;
    std::vector<TileSpan> order(whole.begin(), whole.end() - static_cast<std::ptrdiff_t>(cut));
    for (std::size_t x = whole.size() - cut; x < whole.size(); ++x)
        for (std::size_t i = 0; i < whole[x].rows; i += quarter)
            order.push_back({whole[x].i0 + i, std::min(quarter, whole[x].rows - i)});
    return order;
}

// body(tile, workspace) for every tile, the threads taking the next one as they finish; each
// thread has its own workspace of `work` elements.
template <class T, class Body>
void for_each_tile(const std::vector<TileSpan>& tiles, std::size_t work, Body body) {
    std::atomic<std::size_t> next{0};
    parallel_for(std::min(tiles.size(), thread_limit()), 1, [&](std::size_t, std::size_t) {
        std::vector<T> buffer(work);
        for (std::size_t x = next++; x < tiles.size(); x = next++) body(tiles[x], buffer.data());
    });
}

template <class T>
void pack(const Kernels<T>& ker, MatrixRef<T> q, MatrixRef<T> k, const MatrixRef<T>* v,
          const TiledOptions& opt, const AttentionBias<T>& bias, Packed<T>& out) {
    check_view("Q", q.cols, q.stride);
    check_view("K", k.cols, k.stride);
    if (q.cols != k.cols)
        throw std::invalid_argument("tiled attention: Q and K have different d_k");
    if (q.cols == 0) throw std::invalid_argument("tiled attention: d_k is 0");
    if (v) {
        check_view("V", v->cols, v->stride);
        if (v->rows != k.rows)
            throw std::invalid_argument("tiled attention: V and K have different row counts");
    }
    if (opt.fill && (std::isnan(*opt.fill) || *opt.fill == std::numeric_limits<double>::infinity()))
        throw std::invalid_argument("tiled attention: the fill value is NaN or +inf");
    const std::size_t bk = ker.bk, W = ker.width, d_k = k.cols, n_k = k.rows;
    const std::size_t tiles = (n_k + bk - 1) / bk;
    const std::size_t d_v = v ? v->cols : 0, dv_pad = (d_v + W - 1) / W * W;
    out.kt.assign(tiles * d_k * bk, T(0));
    parallel_for(tiles, 4, [&](std::size_t b, std::size_t e) {
        for (std::size_t t = b; t < e; ++t)
            for (std::size_t j = t * bk; j < std::min(n_k, (t + 1) * bk); ++j)
                for (std::size_t c = 0; c < d_k; ++c) {
                    const std::size_t jt = j - t * bk, panel = jt / ker.panel;
                    out.kt[t * d_k * bk + panel * d_k * ker.panel + c * ker.panel +
                           jt % ker.panel] = k.data[j * k.stride + c];
                }
    });
    const bool copy_v = v && dv_pad != d_v;
    if (copy_v) {
        out.v.assign(n_k * dv_pad, T(0));
        for (std::size_t j = 0; j < n_k; ++j)
            std::copy_n(v->data + j * v->stride, d_v, out.v.data() + j * dv_pad);
    }
    out.k = k;
    out.bad_keys.clear();
    for (std::size_t j = 0; j < n_k; ++j)
        if (any_nonfinite(k.data + j * k.stride, 1, d_k, 1)) out.bad_keys.push_back(j);
    Problem<T>& p = out.p;
    p.q = q.data;
    p.q_stride = q.stride;
    p.kt = out.kt.data();
    p.v = copy_v ? out.v.data() : v ? v->data : nullptr;
    p.v_stride = copy_v ? dv_pad : v ? v->stride : 0;
    p.n_q = q.rows, p.n_k = n_k, p.d_k = d_k, p.d_v = d_v, p.dv_pad = dv_pad;
    p.bq = tile_rows(ker, q.rows), p.bk = bk;
    p.scale = static_cast<T>(opt.scale ? *opt.scale : 1.0 / std::sqrt(static_cast<double>(d_k)));
    p.causal = opt.causal;
    p.valid_len = opt.valid_len ? std::min(*opt.valid_len, n_k) : n_k;
    p.has_fill = opt.fill.has_value();
    p.fill = static_cast<T>(opt.fill.value_or(0.0));
    p.has_alibi = bias.alibi_slope.has_value();
    p.alibi_slope = static_cast<T>(bias.alibi_slope.value_or(0.0));
    p.relative = bias.relative;
    p.bias = bias.add ? &call_bias<T> : nullptr;
    p.bias_ctx = bias.add ? &bias.add : nullptr;
}

}  // namespace
}  // namespace tiled_detail

template <class T>
struct TiledAttention<T>::Impl {
    const tiled_detail::Kernels<T>* ker;
    AttentionBias<T> bias;
    std::function<void(std::size_t rows)> progress;
    tiled_detail::Packed<T> packed;
};

template <class T>
TiledAttention<T>::TiledAttention(MatrixRef<T> q, MatrixRef<T> k, MatrixRef<T> v,
                                  const TiledOptions& options, AttentionBias<T> bias)
    : impl_(std::make_unique<Impl>()) {
    impl_->ker = tiled_detail::kernels<T>();
    impl_->bias = std::move(bias);
    impl_->progress = options.progress;
    tiled_detail::pack(*impl_->ker, q, k, v.data || v.cols ? &v : nullptr, options, impl_->bias,
                       impl_->packed);
}

template <class T>
TiledAttention<T>::~TiledAttention() = default;
template <class T>
TiledAttention<T>::TiledAttention(TiledAttention&&) noexcept = default;
template <class T>
TiledAttention<T>& TiledAttention<T>::operator=(TiledAttention&&) noexcept = default;

template <class T>
void TiledAttention<T>::context(T* out, std::size_t out_stride) const {
    context(0, impl_->packed.p.n_q, out, out_stride);
}

template <class T>
std::size_t TiledAttention<T>::tile_rows() const {
    return impl_->packed.p.bq;
}

template <class T>
void TiledAttention<T>::context(std::size_t row0, std::size_t rows, T* out,
                                std::size_t out_stride) const {
    const tiled_detail::Kernels<T>& ker = *impl_->ker;
    const tiled_detail::Problem<T>& p = impl_->packed.p;
    tiled_detail::check_view("the context", p.d_v, out_stride);
    if (row0 > p.n_q || rows > p.n_q - row0)
        throw std::invalid_argument("tiled attention: context rows beyond Q");
    if (rows == 0 || p.d_v == 0) return;
    tiled_detail::for_each_tile<T>(
        tiled_detail::tile_order(row0, rows, p.bq, p.causal, thread_limit()),
        ker.workspace(p.bq, p.bk, p.dv_pad, 1), [&](tiled_detail::TileSpan t, T* work) {
            ker.query_tile(p, t.i0, t.rows, work, out, out_stride);
            tiled_detail::nonfinite_rows(p, impl_->packed.k, impl_->packed.bad_keys, t.i0, t.rows,
                                         out, out_stride);
            if (impl_->progress) impl_->progress(t.rows);
        });
}

template <class T>
void TiledAttention<T>::rows(std::size_t row0, std::size_t rows, const ScoreRows<T>& out) const {
    const tiled_detail::Kernels<T>& ker = *impl_->ker;
    const tiled_detail::Problem<T>& p = impl_->packed.p;
    if (row0 > p.n_q || rows > p.n_q - row0)
        throw std::invalid_argument("tiled attention: rows beyond Q");
    tiled_detail::check_view("the score rows", p.n_k, out.stride);
    const std::size_t blocks = (rows + p.bq - 1) / p.bq;
    const std::size_t work = ker.workspace(p.bq, p.bk, 0, 1);
    parallel_for(blocks, 1, [&](std::size_t b, std::size_t e) {
        std::vector<T> buffer(work);
        for (std::size_t x = b; x < e; ++x) {
            const std::size_t r0 = x * p.bq, n = std::min(p.bq, rows - r0);
            auto at = [&](T* base) { return base ? base + r0 * out.stride : nullptr; };
            const ScoreRows<T> sub{at(out.raw), at(out.scores), at(out.masked), at(out.weights),
                                   out.stride};
            ker.score_rows(p, row0 + r0, n, buffer.data(), sub);
        }
    });
}

template <class T>
void tiled_attention(MatrixRef<T> q, MatrixRef<T> k, MatrixRef<T> v, T* out, std::size_t out_stride,
                     const TiledOptions& options, const AttentionBias<T>& bias) {
    TiledAttention<T>(q, k, v, options, bias).context(out, out_stride);
}

template <class T>
void tiled_attention_group(const std::vector<MatrixRef<T>>& q, MatrixRef<T> k, MatrixRef<T> v,
                           const std::vector<T*>& out, std::size_t out_stride,
                           const TiledOptions& options, const AttentionBias<T>& bias,
                           std::size_t row0, std::optional<std::size_t> rows) {
    if (q.empty()) throw std::invalid_argument("tiled attention: no query heads");
    if (out.size() != q.size())
        throw std::invalid_argument("tiled attention: not one output per query head");
    for (const MatrixRef<T>& h : q) {
        tiled_detail::check_view("Q", h.cols, h.stride);
        if (h.rows != q[0].rows || h.cols != q[0].cols)
            throw std::invalid_argument("tiled attention: the query heads differ in shape");
    }
    const tiled_detail::Kernels<T>& ker = *tiled_detail::kernels<T>();
    tiled_detail::Packed<T> packed;
    tiled_detail::pack(ker, q[0], k, &v, options, bias, packed);
    const tiled_detail::Problem<T>& p = packed.p;
    tiled_detail::check_view("the context", p.d_v, out_stride);
    const std::size_t count = rows.value_or(row0 <= p.n_q ? p.n_q - row0 : 0);
    if (row0 > p.n_q || count > p.n_q - row0)
        throw std::invalid_argument("tiled attention: context rows beyond Q");
    if (count == 0 || p.d_v == 0) return;
    std::vector<tiled_detail::Problem<T>> ps(q.size(), p);
    for (std::size_t h = 0; h < q.size(); ++h) ps[h].q = q[h].data, ps[h].q_stride = q[h].stride;
    tiled_detail::for_each_tile<T>(
        tiled_detail::tile_order(row0, count, p.bq, p.causal, thread_limit()),
        ker.workspace(p.bq, p.bk, p.dv_pad, q.size()), [&](tiled_detail::TileSpan t, T* work) {
            ker.query_tile_group(ps.data(), ps.size(), t.i0, t.rows, work, out.data(), out_stride);
            for (std::size_t h = 0; h < ps.size(); ++h)
                tiled_detail::nonfinite_rows(ps[h], packed.k, packed.bad_keys, t.i0, t.rows, out[h],
                                             out_stride);
            if (options.progress) options.progress(t.rows * q.size());
        });
}

template <class T>
std::size_t tiled_value_copy(std::size_t d_v) {
    const std::size_t W = tiled_detail::kernels<T>()->width, dv_pad = (d_v + W - 1) / W * W;
    return dv_pad == d_v ? 0 : dv_pad;
}

template <class T>
std::size_t tiled_workspace(std::size_t n_q, std::size_t d_v, std::size_t heads) {
    const tiled_detail::Kernels<T>& ker = *tiled_detail::kernels<T>();
    const std::size_t W = ker.width, dv_pad = (d_v + W - 1) / W * W;
    return ker.workspace(tiled_detail::tile_rows(ker, n_q), ker.bk, dv_pad, heads);
}

template <class T>
xt::xtensor<T, 2> tiled_attention(const xt::xtensor<T, 2>& q, const xt::xtensor<T, 2>& k,
                                  const xt::xtensor<T, 2>& v, const TiledOptions& options,
                                  const AttentionBias<T>& bias) {
    auto view = [](const xt::xtensor<T, 2>& m) {
        return MatrixRef<T>{m.data(), m.shape(0), m.shape(1), m.shape(1)};
    };
    xt::xtensor<T, 2> out = xt::zeros<T>({q.shape(0), v.shape(1)});
    tiled_attention(view(q), view(k), view(v), out.data(), v.shape(1), options, bias);
    return out;
}

template <class T>
void tiled_exp(T* x, std::size_t n) {
    tiled_detail::kernels<T>()->exp(x, n);
}

std::string tiled_kernel() {
    return tiled_detail::kernel_names[tiled_detail::kernel_index()];
}

bool select_tiled_kernel(const std::string& name) {
    const std::string want = name.empty() || name == "auto" ? tiled_detail::best_kernel() : name;
    for (int k = 0; k < 3; ++k)
        if (want == tiled_detail::kernel_names[k] && tiled_detail::cpu_has(want)) {
            tiled_detail::g_kernel.store(k);
            return true;
        }
    return false;
}

#define ATTN_TILED(T)                                                                           \
    template class TiledAttention<T>;                                                           \
    template void tiled_attention<T>(MatrixRef<T>, MatrixRef<T>, MatrixRef<T>, T*, std::size_t, \
                                     const TiledOptions&, const AttentionBias<T>&);             \
    template void tiled_attention_group<T>(const std::vector<MatrixRef<T>>&, MatrixRef<T>,      \
                                           MatrixRef<T>, const std::vector<T*>&, std::size_t,   \
                                           const TiledOptions&, const AttentionBias<T>&,        \
                                           std::size_t, std::optional<std::size_t>);            \
    template std::size_t tiled_value_copy<T>(std::size_t);                                      \
    template std::size_t tiled_workspace<T>(std::size_t, std::size_t, std::size_t);             \
    template xt::xtensor<T, 2> tiled_attention<T>(                                              \
        const xt::xtensor<T, 2>&, const xt::xtensor<T, 2>&, const xt::xtensor<T, 2>&,           \
        const TiledOptions&, const AttentionBias<T>&);                                          \
    template void tiled_exp<T>(T*, std::size_t);
ATTN_TILED(float)
ATTN_TILED(double)
#undef ATTN_TILED

}  // namespace attn
