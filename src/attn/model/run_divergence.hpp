// Two runs of the same ids side by side, model A in TA and model B in TB (attn compare): every
// layer and head, a layer at a time, each head's weight rows reduced as they are read
// (weight_divergence.hpp). The rows stream in blocks of about 2^16 values from the fused
// kernel, or are read from the layer's held weights on the bfloat16/float16 path (which holds
// one layer's H x n x n); nothing of a prompt is kept but its figures' sums.
//   weights[l H + h]  layer l, head h: JS, top-1 agreement, max |A_ij - B_ij|, pooled
//   hidden[l]         max over prompts of max |h_A - h_B| / max |h_A| after layer l
//   next              KL(p_A || p_B) summed over prompts, and how many agree on the argmax
// A NaN in either run stays NaN in every figure it reaches, as numpy's (weight_divergence.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/model/config.hpp"
#include "attn/model/nonfinite.hpp"
#include "attn/model/weights.hpp"
#include "attn/weight_divergence.hpp"

namespace attn::model {

/// What the runs reduce: the weights (per head), the hidden states (per layer), the next token.
struct DivergenceChoice {
    bool weights = false, hidden = false, next = false;
};

/// The prompts' figures so far, for a model of `layers` x `heads`.
struct RunDivergence {
    RunDivergence(std::size_t layers, std::size_t heads)
        : layers(layers), heads(heads), weights(layers * heads), hidden(layers, 0.0) {}
    std::size_t layers, heads, prompts = 0;
    std::vector<PooledDivergence> weights;  // [layers * heads]
    std::vector<double> hidden;             // [layers]
    double next_kl_sum = 0;
    std::size_t next_same = 0;
    /// NaN before any prompt.
    double next_kl() const;
};

/// Where each run of a prompt first held a NaN or an infinity (nonfinite.hpp); nullopt when it
/// held none.
struct PairNonFinite {
    std::optional<NonFinite> a, b;
};

/// ids through A (config ca, tensors a) in TA and B (cb, b) in TB, every layer and head, added
/// into r; where each run first held a NaN or inf. The models have r's layers and heads; with
/// `next` both end in an LM head. Errors are ModelRun's (a context shorter than the ids, a
/// tensor missing or misshapen).
template <class TA, class TB>
PairNonFinite add_prompt_divergence(const ModelConfig& ca, const TensorSource& a,
                                    const ModelConfig& cb, const TensorSource& b,
                                    const std::vector<std::int64_t>& ids, DivergenceChoice choice,
                                    RunDivergence& r);

}  // namespace attn::model
