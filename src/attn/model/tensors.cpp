#include "attn/model/tensors.hpp"

#include <algorithm>
#include <stdexcept>

#include "attn/model/config.hpp"
#include "attn/model/families.hpp"
#include "runtime/memory_budget.hpp"

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

std::uint64_t forward_bytes(const ModelConfig& c, std::uint64_t n, std::uint64_t value_bytes) {
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
    const std::uint64_t d = c.hidden_size, H = c.num_heads;
    const std::uint64_t qkv = checked_product({n, H + 2 * c.num_kv_heads, c.head_dim}, what);
    const std::uint64_t scores = checked_product({2, H, n, n}, what);  // scores and weights
    const std::uint64_t mlp =
        checked_product({c.gated_mlp ? 3u : 2u, n, c.intermediate_size}, what);
    const std::uint64_t stream = checked_product({4, n, d}, what);  // residual, normed, out, ctx
    std::uint64_t values = block;
    for (const auto v : {qkv, scores, mlp, stream, std::uint64_t{c.vocab_size}})
        values = checked_add(values, v, what);
    return checked_mul(values, value_bytes, what);
}

}  // namespace attn::model
