#include "attn/model/tensors.hpp"

#include <algorithm>
#include <stdexcept>

#include "attn/attention/tiled.hpp"
#include "attn/model/config.hpp"
#include "attn/model/families.hpp"
#include "attn/model/ops.hpp"
#include "runtime/memory_budget.hpp"
#include "runtime/parallel.hpp"

namespace attn::model {

TensorTable::TensorTable(const TensorNaming& naming)
    : prefixes_(naming.prefixes.begin(), naming.prefixes.end()), legacy_norm_(naming.legacy_norm) {}

Tensor TensorTable::add(const std::string& name, std::vector<std::uint64_t> shape) {
    std::vector<std::string> names;
    for (const auto& p : prefixes_) names.push_back(p + name);
    if (legacy_norm_ && name.find("LayerNorm.") != std::string::npos) {
        const auto dot = name.rfind('.');
        const std::string legacy =
            name.substr(0, dot + 1) + (name.ends_with(".weight") ? "gamma" : "beta");
        for (const auto& p : prefixes_) names.push_back(p + legacy);
    }
    return add_any(std::move(names), std::move(shape));
}

Tensor TensorTable::add_any(std::vector<std::string> names, std::vector<std::uint64_t> shape) {
    specs_.push_back(TensorSpec{std::move(names), std::move(shape), layer_});
    return Tensor{specs_.size() - 1};
}

Linear TensorTable::linear(const std::string& name, std::uint64_t out, std::uint64_t in,
                           bool bias) {
    Linear l;
    l.weight = add(name + ".weight", {out, in});
    if (bias) l.bias = add(name + ".bias", {out});
    l.rows = out;
    l.cols = in;
    l.layout = WeightLayout::out_in;
    return l;
}

Linear TensorTable::conv1d(const std::string& name, std::uint64_t in, std::uint64_t out) {
    Linear l;
    l.weight = add(name + ".weight", {in, out});
    l.bias = add(name + ".bias", {out});
    l.rows = in;
    l.cols = out;
    l.layout = WeightLayout::in_out;
    return l;
}

NormWeights TensorTable::layer_norm(const std::string& name, std::uint64_t d) {
    NormWeights n;
    n.weight = add(name + ".weight", {d});
    n.bias = add(name + ".bias", {d});
    return n;
}

NormWeights TensorTable::rms_norm(const std::string& name, std::uint64_t d) {
    return NormWeights{add(name + ".weight", {d}), {}};
}

std::vector<TensorSpec> model_tensors(const ModelConfig& c) {
    TensorTable t(c.family->naming);
    c.family->tensors(c, t);
    return t.specs();
}

TensorSpec position_table(const ModelConfig& c) {
    TensorTable t(c.family->naming);
    const Tensor table = c.family->position_table ? c.family->position_table(c, t) : Tensor{};
    if (!table)
        throw std::invalid_argument(std::string(c.family->model_type) +
                                    " has no learned position table");
    return t.spec(table);
}

std::uint64_t forward_bytes(const ModelConfig& c, std::uint64_t n, std::uint64_t value_bytes,
                            const ForwardKeep& keep) {
    using runtime::checked_add;
    using runtime::checked_mul;
    using runtime::checked_product;
    const char* what = "the forward of the model";
    // One block's weights, widened: the largest block (t5's block 0 holds the bias table too).
    ModelConfig first = c;  // the specs of block 0 only, whatever the depth
    first.num_layers = std::min<std::size_t>(c.num_layers, 1);
    std::uint64_t block = 0;
    for (const TensorSpec& t : model_tensors(first)) {
        if (t.layer != 0) continue;
        std::uint64_t count = 1;
        for (const auto s : t.shape) count = checked_mul(count, s, what);
        block = checked_add(block, count, what);
    }
    const std::uint64_t d = c.hidden_size, H = c.num_heads, G = c.num_kv_heads, hd = c.head_dim;
    const std::uint64_t qkv = checked_product({n, H + 2 * G, hd}, what);
    // the layer's q k v copies, rotated q and k, concat; the block's and the run's previous one
    const std::uint64_t layer = checked_product({2, n, (H + 2 * G) + (H + G) + H, hd}, what);
    const std::uint64_t mlp_rows = std::min<std::uint64_t>(n, mlp_block_rows(n));
    std::uint64_t mlp =
        checked_product({c.gated_mlp ? 3u : 2u, mlp_rows, c.intermediate_size}, what);
    if (mlp_rows < n) mlp = checked_add(mlp, checked_product({2, mlp_rows, d}, what), what);
    const std::uint64_t stream = checked_product({4, n, d}, what);  // residual, normed x2, out
    std::uint64_t attention = 0;
    if (keep.square || c.compute_dtype) {
        attention = checked_product({2, H, n, n}, what);  // scores and weights
    } else {
        // packed K^T and padded V of one key/value group, its heads' workspace per thread,
        // and 2 x 128 rows of n (scores and weights of a row block that a reduction reads)
        const std::uint64_t threads = thread_limit(), group = H / std::max<std::uint64_t>(G, 1);
        const std::uint64_t work = value_bytes == 8 ? tiled_workspace<double>(n, hd, group)
                                                    : tiled_workspace<float>(n, hd, group);
        attention = checked_add(checked_product({2, n + 1024, hd + 16}, what),
                                checked_mul(threads, work, what), what);
        attention = checked_add(attention, checked_product({2, 128, n}, what), what);
    }
    const std::uint64_t kept = checked_add(checked_product({keep.hidden, n, d}, what),
                                           checked_product({keep.contexts, n, hd}, what), what);
    std::uint64_t values = block;
    for (const auto v : {qkv, layer, attention, mlp, stream, kept, std::uint64_t{c.vocab_size}})
        values = checked_add(values, v, what);
    const std::uint64_t counts = checked_product({keep.offsets, 2 * n, 8}, what);
    return checked_add(checked_add(checked_mul(values, value_bytes, what), counts, what),
                       lens_bytes(c, n, value_bytes, keep.lens), what);
}

std::uint64_t lens_bytes(const ModelConfig& c, std::uint64_t n, std::uint64_t value_bytes,
                         const ForwardKeep::Lens& lens) {
    using runtime::checked_add;
    using runtime::checked_product;
    if (lens.layers == 0) return 0;
    const char* what = "the logit lens of the model";
    const std::uint64_t m = lens.every_position ? n : 1, d = c.hidden_size;
    const std::uint64_t K = std::min<std::uint64_t>(lens.top, c.vocab_size);
    // as FamilyForward::lens picks its block of vocabulary rows
    const std::uint64_t b = std::clamp<std::uint64_t>(
        (std::uint64_t{1} << 24) / std::max<std::uint64_t>(m, 1), 256, 4096);
    const std::uint64_t values =
        checked_add(checked_product({3, m, d}, what), checked_product({b, d + m}, what), what);
    std::uint64_t bytes = checked_product({values, value_bytes}, what);
    bytes = checked_add(bytes, checked_product({m, K + 1, 16}, what), what);
    bytes = checked_add(bytes, checked_product({64, m}, what), what);
    return checked_add(bytes, checked_product({lens.layers, m, 16 * K + 8}, what), what);
}

std::uint64_t longest_forward(const ModelConfig& c, std::uint64_t n, std::uint64_t value_bytes,
                              const ForwardKeep& keep, std::uint64_t limit) {
    std::uint64_t lo = 0, hi = n;  // forward_bytes grows with n: the last n' that fits
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo + 1) / 2;
        bool fits = false;
        try {
            fits = forward_bytes(c, mid, value_bytes, keep) <= limit;
        } catch (const runtime::SizeOverflow&) {
        }
        if (fits)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

}  // namespace attn::model
