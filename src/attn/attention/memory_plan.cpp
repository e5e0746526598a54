#include "attn/attention/memory_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "attn/attention/tiled.hpp"
#include "runtime/memory_budget.hpp"
#include "runtime/parallel.hpp"

namespace attn {

using runtime::checked_add;
using runtime::checked_mul;
using runtime::checked_product;

std::uint64_t MemoryPlan::total() const {
    std::uint64_t sum = 0;
    for (const Part& p : parts) sum = checked_add(sum, p.bytes, "the attention's memory");
    return sum;
}

const MemoryPlan::Part& MemoryPlan::largest() const {
    if (parts.empty()) throw std::logic_error("memory plan: no parts");
    return *std::max_element(parts.begin(), parts.end(),
                             [](const Part& a, const Part& b) { return a.bytes < b.bytes; });
}

MemoryPlan memory_plan(const LayerShape& s, const LayerOptions& options, std::size_t element,
                       std::size_t streamed_rows, std::uint64_t held) {
    MemoryPlan plan;
    const auto add = [&](std::string what, std::uint64_t bytes) {
        if (bytes) plan.parts.push_back({std::move(what), bytes});
    };
    const std::uint64_t n = s.n, H = s.heads, G = s.kv_heads, e = element;
    const bool rope = s.scheme == positions::Scheme::rope;
    add("what the caller holds", held);
    // x' = x[p] (+ P) where it is not x itself, and P (sinusoidal), or T5's H x (2n - 1)
    // relative biases
    if (!s.given_qkv && (s.permuted || positions::adds_to_x(s.scheme)))  // as forward makes it
        add("the inputs", checked_product({n, s.d_in, e}, "the inputs"));
    if (s.scheme == positions::Scheme::sinusoidal)
        add("the positions P", checked_product({n, s.d_in, e}, "the positions P"));
    if (s.scheme == positions::Scheme::t5)
        add("the t5 biases", checked_product({H, 2 * n, e}, "the t5 biases"));
    // q (H), k (G), v (G), and q, k rotated (in place unless keep_unrotated)
    const std::uint64_t widths =
        H * s.d_k + G * (s.d_k + s.d_v) + (rope && options.keep_unrotated ? (H + G) * s.d_k : 0);
    add("the projections", checked_product({n, widths, e}, "the projections"));
    // concat (n, H d_v) and output (n, d_out); the direct path also holds each head's context
    const bool direct = options.path == AttentionPath::direct;
    add("the context and output",
        checked_product({n, H * s.d_v * (direct ? 2 : 1) + (s.output ? s.d_out : 0), e},
                        "the context and output"));
    if (direct) {
        // per head omega, scaled and weights (made by scaled_dot_product_attention whatever is
        // kept), the masked scores when kept, and one mask of bools
        const std::uint64_t per = 3 * e + (options.keep_masked ? e : 0) + 1;
        add("the attention matrices", checked_product({H, n, n, per}, "the attention matrices"));
    } else {
        // one head's packed K, and V padded when the kernels cannot read it in place
        const std::size_t v_copy =
            e == sizeof(float) ? tiled_value_copy<float>(s.d_v) : tiled_value_copy<double>(s.d_v);
        add("the packed keys", checked_product({n, s.d_k + v_copy, e}, "the packed keys"));
        // each thread's workspace, for the query heads of a K/V group at once
        const std::size_t work = e == sizeof(float) ? tiled_workspace<float>(n, s.d_v, H / G)
                                                    : tiled_workspace<double>(n, s.d_v, H / G);
        add("the tiles' workspace",
            checked_product({thread_limit(), work, e}, "the tiles' workspace"));
    }
    // rows a caller streams: the rows in T, the doubles handed to a writer, a block made ahead
    add("the streamed rows",
        checked_product({streamed_rows, n, e + 2 * sizeof(double)}, "the streamed rows"));
    return plan;
}

std::uint64_t weights_bytes(const LayerShape& s, std::size_t element) {
    if (!s.weights) return 0;
    // per head (d_in + 1) x d with biases (the bias a row more), else d_in x d: W_q, W_k, W_v
    const std::uint64_t rows = checked_add(s.d_in, s.biases ? 1 : 0, "the weights");
    const std::uint64_t per_head = checked_add(2 * std::uint64_t{s.d_k}, s.d_v, "the weights");
    std::uint64_t values = checked_product({s.heads, rows, per_head}, "the weights");
    if (s.output)  // W_o (H d_v (+ 1), d_out)
        values = checked_add(
            values,
            checked_product(
                {checked_add(checked_mul(s.heads, s.d_v, "W_o"), s.biases ? 1 : 0, "W_o"), s.d_out},
                "W_o"),
            "the weights");
    return checked_mul(values, element, "the weights");
}

std::uint64_t making_weights_bytes(const LayerShape& shape, std::uint64_t x_values,
                                   std::uint64_t given_values, std::size_t element) {
    const std::uint64_t float32 = weights_bytes(shape, 4);
    const std::uint64_t drawn = float32 - std::min(float32, 4 * given_values);
    const std::uint64_t held =
        checked_mul(checked_add(x_values, given_values, "the inputs"), 8, "the inputs");
    return checked_add(checked_add(held, drawn, "the weight matrices"),
                       weights_bytes(shape, element), "the weight matrices");
}

RunPlan run_plan(const LayerShape& widths, const std::vector<SequenceShape>& sequences,
                 const LayerOptions& options, std::size_t element, std::uint64_t held_per_row,
                 std::size_t streamed_width) {
    RunPlan plan;
    std::size_t widest = 1;
    for (const SequenceShape& s : sequences) widest = std::max(widest, s.n);
    if (options.path == AttentionPath::tiled)
        plan.block_rows = std::clamp<std::size_t>((std::size_t{1} << 22) / widest, 1, 256);
    if (!sequences.empty()) {
        const SequenceShape& first = sequences.front();
        const std::string batch = first.batch ? fmt::format("{} x ", first.batch) : "";
        plan.what = options.path == AttentionPath::tiled
                        ? fmt::format("tiled attention over {}{} rows", batch, first.n)
                        : fmt::format("{}{} x {} x {} attention scores", batch, widths.heads,
                                      first.n, first.n);
    }
    for (const SequenceShape& s : sequences) {
        LayerShape shape = widths;
        shape.n = s.n;
        const std::uint64_t one = memory_plan(shape, options, element, 0,
                                              checked_product({held_per_row, s.n}, "the inputs"))
                                      .total();
        const std::uint64_t layers = std::max<std::size_t>(s.batch, 1) + (shape.permuted ? 1 : 0);
        plan.bytes = checked_add(plan.bytes, checked_product({layers, one}, "the attention"),
                                 "the attention");
    }
    plan.weights = weights_bytes(widths, element);
    plan.bytes = checked_add(plan.bytes, plan.weights, "the attention");
    plan.bytes = checked_add(plan.bytes,
                             checked_product({std::min(plan.block_rows, widest), streamed_width,
                                              element + 2 * sizeof(double)},
                                             "the streamed rows"),
                             "the attention");
    return plan;
}

RunPlan sequence_run_plan(const LayerShape& widths, const std::vector<SequenceShape>& sequences,
                          const LayerOptions& options, std::size_t element, bool n_wide) {
    const LayerShape& w = widths;
    std::size_t streamed = std::max({w.d_in, w.heads * std::max(w.d_k, w.d_v), w.d_out});
    for (const SequenceShape& s : sequences)
        if (n_wide) streamed = std::max(streamed, s.n);
    const std::uint64_t held =
        checked_product({w.d_in, 8 + element + (w.permuted ? 8 : 0)}, "the inputs");
    return run_plan(widths, sequences, options, element, held, streamed);
}

}  // namespace attn
