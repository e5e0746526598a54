#include "attn/model/family.hpp"

#include <fmt/format.h>

#include <optional>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace attn::model {

namespace {

positions::SchemeConfig scheme_config(const ModelConfig& c) {
    positions::SchemeConfig s;
    s.n_heads = c.num_heads;
    switch (c.positions) {
        case positions::Scheme::none:  // learned rows, added to the embedding
        case positions::Scheme::sinusoidal:
        case positions::Scheme::t5:  // the table is read by t5.cpp
            break;
        case positions::Scheme::rope:
            s.scheme = positions::Scheme::rope;
            s.rope = c.rope;
            s.base = c.rope.base;
            s.layout = positions::Layout::split;
            break;
        case positions::Scheme::alibi:
            s.scheme = positions::Scheme::alibi;
            s.alibi = positions::AlibiForm::key_position;
            break;
    }
    return s;
}

}  // namespace

template <class T>
FamilyForward<T>::FamilyForward(const ModelConfig& c, const TensorSource& source, std::size_t n)
    : c_(c), n_(n), table_(c.family->naming), w_(table_, source, c.compute_dtype) {
    if (c.positions != positions::Scheme::t5)
        scheme_ = positions::PositionScheme<T>(scheme_config(c), n);
    if (c.rope_local) {
        positions::SchemeConfig local = scheme_config(c);
        local.rope = *c.rope_local;
        local.base = c.rope_local->base;
        scheme_local_ = positions::PositionScheme<T>(local, n);
    }
}

template <class T>
LayerAttention<T> FamilyForward<T>::layer_options(std::size_t layer) const {
    LayerAttention<T> a;
    a.causal = c_.causal;
    const bool sliding =
        c_.sliding_window && (c_.sliding_layers.empty() ||
                              (layer < c_.sliding_layers.size() && c_.sliding_layers[layer]));
    if (sliding) a.sliding_window = c_.sliding_window;
    if (!c_.scale_scores) a.scale = 1.0;
    if (c_.query_scale) a.scale = c_.query_scale;
    a.softcap = c_.attn_softcap;
    a.scheme = sliding && c_.rope_local ? &scheme_local_ : &scheme_;
    return a;
}

template <class T>
LayerOptions FamilyForward<T>::options(std::size_t layer, Keep keep) const {
    const LayerAttention<T> a = layer_options(layer);
    LayerOptions o;
    o.mask.causal = a.causal;
    o.mask.sliding_window = a.sliding_window;
    o.scale = a.scale;
    o.softcap = a.softcap;
    // the fused kernel when no n x n array is kept, but a compute dtype is the direct path's
    const bool direct = keep.scores || keep.weights || c_.compute_dtype;
    o.path = direct ? AttentionPath::direct : AttentionPath::tiled;
    o.keep_scores = false;
    o.keep_masked = false;
    o.keep_scaled = keep.scores;
    o.keep_weights = keep.weights;
    o.dtype = c_.compute_dtype;
    return o;
}

template <class T>
void FamilyForward<T>::round(Matrix<T>& m) const {
    if (c_.compute_dtype) runtime::round_all(*c_.compute_dtype, m.data(), m.size());
}

template <class T>
Matrix<T> FamilyForward<T>::layer_norm(const Matrix<T>& x, const T* w, const T* b,
                                       double eps) const {
    Matrix<T> y = model::layer_norm(x, w, b, eps);
    round(y);
    return y;
}

template <class T>
Matrix<T> FamilyForward<T>::layer_norm(const Matrix<T>& x, const NormWeights& n) {
    return layer_norm(x, w_.get(n.weight), w_.get(n.bias), c_.norm_eps);
}

template <class T>
Matrix<T> FamilyForward<T>::rms_norm(const Matrix<T>& x, const NormWeights& n) {
    return rms_norm(x, w_.get(n.weight), c_.norm_eps);
}

template <class T>
Matrix<T> FamilyForward<T>::norm(const Matrix<T>& x, const NormWeights& n) {
    if (c_.norm == Norm::rms_norm) return rms_norm(x, n);
    Matrix<T> y = model::norm<T>(c_, x, w_.get(n.weight), w_.get_optional(n.bias));
    round(y);
    return y;
}

template <class T>
void FamilyForward<T>::head_norm(Matrix<T>& y, std::size_t count, const NormWeights& n) {
    // y (n, count hd) read as (n count, hd): one row per (position, head)
    const std::size_t rows = y.shape(0), cols = y.shape(1);
    y.reshape({rows * count, cols / count});
    y = norm(y, n);
    y.reshape({rows, cols});
}

template <class T>
Matrix<T> FamilyForward<T>::rms_norm(const Matrix<T>& x, const T* w, double eps) const {
    if (!c_.compute_dtype) return model::rms_norm(x, w, eps);
    // y = fl(w fl(x inv)), inv = 1 / sqrt(mean(x^2) + eps) in float32 as the norms upcast
    const std::size_t n = x.shape(0), d = x.shape(1);
    Matrix<T> y({n, d});
    for (std::size_t i = 0; i < n; ++i) {
        const T* r = &x(i, 0);
        double sq = 0;
        for (std::size_t j = 0; j < d; ++j) sq += static_cast<double>(r[j]) * r[j];
        const T inv = static_cast<T>(1.0 / std::sqrt(sq / static_cast<double>(d) + eps));
        for (std::size_t j = 0; j < d; ++j) y(i, j) = r[j] * inv;
    }
    round(y);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) y(i, j) *= w[j];
    round(y);
    return y;
}

template <class T>
Matrix<T> FamilyForward<T>::linear(const Matrix<T>& x, const Projection<T>& p) const {
    Matrix<T> y = model::linear(x, p);
    round(y);
    return y;
}

template <class T>
void FamilyForward<T>::activate(Matrix<T>& x, Activation act) const {
    model::activate(x, act);
    round(x);
}

template <class T>
void FamilyForward<T>::gate(Matrix<T>& a, const Matrix<T>& b, Activation act) const {
    if (!c_.compute_dtype) return model::gate(a, b, act);
    activate(a, act);  // fl(act(a)), then fl(act(a) b)
    auto ib = b.begin();
    for (auto ia = a.begin(); ia != a.end(); ++ia, ++ib) *ia *= *ib;
    round(a);
}

template <class T>
void FamilyForward<T>::add(Matrix<T>& a, const Matrix<T>& b) const {
    model::add(a, b);
    round(a);
}

template <class T>
void FamilyForward<T>::add_linear(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& p) const {
    if (!c_.compute_dtype) return model::add_linear(y, x, p);
    add(y, linear(x, p));  // fl(y + fl(x W + b)), as the residual's sum of addmm's result
}

namespace {

// mlp(y_b, x_b) on blocks of mlp_block_rows(n) rows of y and x (n, d) each, copied in and y's
// written back: a row's MLP reads only its own row, so its numbers do not depend on the block.
template <class T, class Mlp>
void by_row_blocks(Matrix<T>& y, const Matrix<T>& x, const Mlp& mlp) {
    const std::size_t n = x.shape(0), rows = mlp_block_rows(n);
    if (rows >= n) return mlp(y, x);
    const std::size_t d_in = x.shape(1), d_out = y.shape(1);
    for (std::size_t r0 = 0; r0 < n; r0 += rows) {
        const std::size_t m = std::min(rows, n - r0);
        Matrix<T> xb({m, d_in}), yb({m, d_out});
        std::copy_n(x.data() + r0 * d_in, m * d_in, xb.data());
        std::copy_n(y.data() + r0 * d_out, m * d_out, yb.data());
        mlp(yb, xb);
        std::copy_n(yb.data(), m * d_out, y.data() + r0 * d_out);
    }
}

}  // namespace

template <class T>
void FamilyForward<T>::feed_forward(Matrix<T>& y, const Matrix<T>& x, const Projection<T>& up,
                                    Activation act, const Projection<T>& down) const {
    by_row_blocks(y, x, [&](Matrix<T>& yb, const Matrix<T>& xb) {
        if (!c_.compute_dtype) return model::feed_forward(yb, xb, up, act, down);
        Matrix<T> a = linear(xb, up);  // (rows, I)
        activate(a, act);
        add_linear(yb, a, down);  // (rows, d)
    });
}

template <class T>
void FamilyForward<T>::gated_feed_forward(Matrix<T>& y, const Matrix<T>& x,
                                          const Projection<T>& gate_w, const Projection<T>& up,
                                          Activation act, const Projection<T>& down) const {
    by_row_blocks(y, x, [&](Matrix<T>& yb, const Matrix<T>& xb) {
        if (!c_.compute_dtype) return model::gated_feed_forward(yb, xb, gate_w, up, act, down);
        Matrix<T> a = linear(xb, gate_w);  // (rows, I)
        gate(a, linear(xb, up), act);
        add_linear(yb, a, down);  // (rows, d)
    });
}

template <class T>
std::vector<MatrixRef<T>> FamilyForward<T>::heads(const Matrix<T>& y, std::size_t count,
                                                  std::size_t first, std::size_t step) const {
    std::vector<MatrixRef<T>> out;
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(
            MatrixRef<T>{y.data() + first + i * step, y.shape(0), c_.head_dim, y.shape(1)});
    return out;
}

template <class T>
LayerResult<T> FamilyForward<T>::attend(std::size_t layer, const QkvHeads<T>& heads, Keep keep,
                                        std::optional<Projection<T>> output) {
    if (record_values_ && output) values_ = value_vectors(heads.v, c_.num_heads, *output);
    LayerInput<T> in;  // q, k, v given: no projection inside forward()
    in.q = heads.q;
    in.k = heads.k;
    in.v = heads.v;
    const LayerOptions o = options(layer, keep);
    return forward(in, LayerWeights<T>{}, *layer_options(layer).scheme, o);
}

template <class T>
LayerResult<T> FamilyForward<T>::attention(std::size_t layer, const QkvHeads<T>& heads,
                                           const Projection<T>& output, Keep keep, Matrix<T>& h) {
    LayerResult<T> r = attend(layer, heads, keep, output);
    add_linear(h, r.output, output);  // concat (n, H hd) -> (n, d)
    return r;
}

template <class T>
Matrix<T> FamilyForward<T>::gather(Tensor table, std::span<const std::int64_t> ids) {
    const std::size_t d = c_.hidden_size;
    Matrix<T> x({ids.size(), d});
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto id = ids[i];
        if (id < 0 || static_cast<std::size_t>(id) >= c_.vocab_size)
            throw std::invalid_argument("token id " + std::to_string(id) +
                                        " is outside the vocabulary (0.." +
                                        std::to_string(c_.vocab_size - 1) + ")");
        w_.rows(table, static_cast<std::size_t>(id), 1, &x(i, 0));
    }
    return x;
}

template <class T>
LmHead FamilyForward<T>::head() {
    throw std::logic_error(std::string(c_.model_type()) + " has no next-token head");
}

template <class T>
std::vector<T> FamilyForward<T>::next_logits(const Matrix<T>& h) {
    const LmHead lm = head();
    return lm_head(h, lm.norm, lm.table);
}

template <class T>
void FamilyForward<T>::check_lens() {
    if (!c_.family->lm_head)
        throw std::invalid_argument(fmt::format("{} has no LM head for the lens", c_.model_type()));
}

template <class T>
Matrix<T> FamilyForward<T>::lens_input(const Matrix<T>& rows) {
    const NormWeights n = head().norm;
    return model::norm<T>(c_, rows, w_.get(n.weight), w_.get_optional(n.bias));
}

template <class T>
LensRows FamilyForward<T>::lens(const Matrix<T>& h, std::span<const std::size_t> rows,
                                std::size_t top, std::vector<std::int64_t> targets) {
    // x = lens_input(h[rows]) (m, d); logits (m, count) = x E[v0 .. v0 + count)^T + b, E (V, d)
    // kBlock rows at a time (read in place when float32, else widened), reduced by LensScan;
    // fewer when m is large, so that a block's logits stay within 2^24 values (64 MiB float)
    const std::size_t d = c_.hidden_size, V = c_.vocab_size, m = rows.size();
    const std::size_t kBlock =
        std::clamp<std::size_t>((std::size_t{1} << 24) / std::max<std::size_t>(m, 1), 256, 4096);
    Matrix<T> picked = Matrix<T>::from_shape({m, d});
    for (std::size_t r = 0; r < m; ++r) std::copy_n(&h(rows[r], 0), d, &picked(r, 0));
    const Matrix<T> x = lens_input(picked);
    const LmHead lm = head();
    const T* bias = w_.get_optional(lm.bias);
    const runtime::TensorView view = w_.view(lm.table);
    const T* in_place = nullptr;
    if constexpr (std::is_same_v<T, float>)
        if (view.is_f32_in_place()) in_place = view.f32().data();
    std::vector<T> buffer(in_place ? 0 : kBlock * d);
    LensScan scan(m, top, V, std::move(targets));
    for (std::size_t v0 = 0; v0 < V; v0 += kBlock) {
        const std::size_t count = std::min(kBlock, V - v0);
        const T* block = in_place ? in_place + v0 * d : buffer.data();
        if (!in_place) w_.rows(lm.table, v0, count, buffer.data());
        Matrix<T> logits = model::linear(
            x, dense(block, count, d, WeightLayout::out_in, bias ? bias + v0 : nullptr));
        round(logits);
        if (c_.final_softcap) {
            const T cap = static_cast<T>(*c_.final_softcap);
            for (T& v : logits) v = cap * std::tanh(v / cap);
            round(logits);
        }
        scan.add(logits.data(), v0, count);
    }
    return scan.finish();
}

template <class T>
Projection<T> FamilyForward<T>::projection(const Linear& l) {
    return dense(w_.get(l.weight), l.rows, l.cols, l.layout, w_.get_optional(l.bias));
}

template <class T>
Matrix<T> FamilyForward<T>::position_rows(Tensor table, std::string_view key) {
    if (n_ > c_.max_positions)
        throw std::invalid_argument(fmt::format("{} has {} positions ({}); the text has {} tokens",
                                                c_.model_type(), c_.max_positions, key, n_));
    Matrix<T> p = Matrix<T>::from_shape({n_, c_.hidden_size});
    w_.rows(table, 0, n_, p.data());
    return p;
}

template <class T>
std::vector<T> FamilyForward<T>::lm_head(const Matrix<T>& h, const NormWeights& norm_weights,
                                         Tensor table) {
    // x = norm(h[n-1]) (1, d); logits[v] = sum_j x[j] E[v, j], E (V, d) kBlock rows at a time:
    // read where they lie (float32 computed in float), else widened into one block's buffer.
    constexpr std::size_t kBlock = 4096;
    const std::size_t d = c_.hidden_size, V = c_.vocab_size, n = h.shape(0);
    const Matrix<T> x =
        model::norm<T>(c_, xt::view(h, xt::range(n - 1, n), xt::all()), w_.get(norm_weights.weight),
                       w_.get_optional(norm_weights.bias));
    const runtime::TensorView view = w_.view(table);
    const T* in_place = nullptr;
    if constexpr (std::is_same_v<T, float>)
        if (view.is_f32_in_place()) in_place = view.f32().data();
    std::vector<T> out(V), rows(in_place ? 0 : kBlock * d);
    for (std::size_t v0 = 0; v0 < V; v0 += kBlock) {
        const std::size_t count = std::min(kBlock, V - v0);
        const T* block = in_place ? in_place + v0 * d : rows.data();
        if (!in_place) w_.rows(table, v0, count, rows.data());
        matvec(block, count, d, x.data(), out.data() + v0);
    }
    const auto round_out = [&] {
        if (c_.compute_dtype) runtime::round_all(*c_.compute_dtype, out.data(), out.size());
    };
    round_out();
    if (c_.final_softcap) {  // fl(fl(tanh(fl(logits / cap))) cap): three ops in a dtype
        T cap = static_cast<T>(*c_.final_softcap);
        if (c_.compute_dtype) runtime::round_all(*c_.compute_dtype, &cap, 1);
        for (T& v : out) v /= cap;
        round_out();
        for (T& v : out) v = std::tanh(v);
        round_out();
        for (T& v : out) v *= cap;
        round_out();
    }
    return out;
}

template <class T>
std::unique_ptr<FamilyForward<T>> make_forward(const ModelConfig& c, const TensorSource& source,
                                               std::size_t n) {
    if constexpr (std::is_same_v<T, float>)
        return c.family->forward_float(c, source, n);
    else
        return c.family->forward_double(c, source, n);
}

template class FamilyForward<float>;
template class FamilyForward<double>;
template std::unique_ptr<FamilyForward<float>> make_forward(const ModelConfig&, const TensorSource&,
                                                            std::size_t);
template std::unique_ptr<FamilyForward<double>> make_forward(const ModelConfig&,
                                                             const TensorSource&, std::size_t);

}  // namespace attn::model
