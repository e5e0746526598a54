#include "attn/model/run_divergence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/model/run.hpp"

namespace attn::model {

namespace {

/// Rows [r, r + count) of head h's weights (n keys each) of layer, as doubles, into out (count,
/// n); buf holds them in T on the way.
template <class T>
void weight_rows(const LayerResult<T>& layer, std::size_t h, std::size_t r, std::size_t count,
                 std::size_t n, std::vector<T>& buf, double* out) {
    if (!layer.weights.empty()) {  // held (the reduced path)
        for (std::size_t i = r; i < r + count; ++i)
            for (std::size_t j = 0; j < n; ++j)
                *out++ = static_cast<double>(layer.weights[h](i, j));
        return;
    }
    ScoreRows<T> rows;
    rows.weights = buf.data();
    rows.stride = n;
    layer.rows->rows(h, r, count, rows);
    for (std::size_t k = 0; k < count * n; ++k) out[k] = static_cast<double>(buf[k]);
}

/// The hidden state k of a run as doubles (n d).
template <class T>
std::vector<double> state_of(const ModelRun<T>& run, std::size_t k) {
    const auto& h = run.hidden()[k];
    return std::vector<double>(h.begin(), h.end());
}

}  // namespace

double RunDivergence::next_kl() const {
    return prompts ? next_kl_sum / static_cast<double>(prompts)
                   : std::numeric_limits<double>::quiet_NaN();
}

template <class TA, class TB>
PairNonFinite add_prompt_divergence(const ModelConfig& ca, const TensorSource& a,
                                    const ModelConfig& cb, const TensorSource& b,
                                    const std::vector<std::int64_t>& ids, DivergenceChoice choice,
                                    RunDivergence& r) {
    std::vector<std::size_t> layers(r.layers), heads(r.heads);
    for (std::size_t k = 0; k < layers.size(); ++k) layers[k] = k;
    for (std::size_t h = 0; h < heads.size(); ++h) heads[h] = h;
    const std::size_t n = ids.size();
    // the reduced path (bfloat16, float16) holds a layer's weights; the others stream row blocks
    const Keep keep_a{false, choice.weights && ca.compute_dtype.has_value()};
    const Keep keep_b{false, choice.weights && cb.compute_dtype.has_value()};
    ModelRun<TA> ra(ca, a, ids, layers, heads, keep_a, choice.next);
    ModelRun<TB> rb(cb, b, ids, layers, heads, keep_b, choice.next);
    ra.record(choice.hidden, false);
    rb.record(choice.hidden, false);
    if (choice.weights) {
        const std::size_t block = std::clamp<std::size_t>((1 << 16) / n, 1, n);
        std::vector<double> wa(block * n), wb(block * n);  // (block, n) rows of one head
        std::vector<TA> buf_a(block * n);
        std::vector<TB> buf_b(block * n);
        for (std::size_t k = 0; k < layers.size(); ++k) {
            const LayerResult<TA>& la = ra.layer(k);
            const LayerResult<TB>& lb = rb.layer(k);
            for (std::size_t h = 0; h < heads.size(); ++h) {
                HeadDivergence d;
                for (std::size_t i = 0; i < n; i += block) {
                    const std::size_t count = std::min(block, n - i);
                    weight_rows(la, h, i, count, n, buf_a, wa.data());
                    weight_rows(lb, h, i, count, n, buf_b, wb.data());
                    d.add_rows(wa.data(), wb.data(), count, n, n);
                }
                r.weights[k * heads.size() + h].add(d);
            }
        }
    }
    if (choice.hidden || choice.next) {
        ra.finish();
        rb.finish();
    }
    if (choice.hidden)
        for (std::size_t k = 0; k < layers.size(); ++k) {  // state k + 1: after layer k
            const std::vector<double> ha = state_of(ra, k + 1), hb = state_of(rb, k + 1);
            r.hidden[k] =
                max_nan(r.hidden[k], relative_max_difference(ha.data(), hb.data(), ha.size()));
        }
    if (choice.next) {
        const NextDivergence d = next_divergence(ra.next(), rb.next());
        r.next_kl_sum += d.kl;
        r.next_same += d.same_top1 ? 1 : 0;
    }
    ++r.prompts;
    return {ra.nonfinite(), rb.nonfinite()};
}

#define ATTN_DIVERGENCE(TA, TB)                                                           \
    template PairNonFinite add_prompt_divergence<TA, TB>(                                 \
        const ModelConfig&, const TensorSource&, const ModelConfig&, const TensorSource&, \
        const std::vector<std::int64_t>&, DivergenceChoice, RunDivergence&);
ATTN_DIVERGENCE(float, float)
ATTN_DIVERGENCE(float, double)
ATTN_DIVERGENCE(double, float)
ATTN_DIVERGENCE(double, double)
#undef ATTN_DIVERGENCE

}  // namespace attn::model
