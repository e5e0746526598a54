#include "cli/model_gguf.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string_view>

#include "attn/model/config.hpp"
#include "attn/model/families.hpp"

namespace attn::cli {

namespace {

using json = nlohmann::json;
using Kind = io::GgufError::Kind;

const model::Family* family_of(const io::GgufFile& file, std::string_view arch) {
    std::string known;
    for (const model::Family* f : model::families()) {
        if (f->gguf.architecture.empty()) continue;
        if (f->gguf.architecture == arch) return f;
        known += (known.empty() ? "" : ", ") + std::string(f->gguf.architecture);
    }
    throw io::GgufError(Kind::unsupported, file.path(), "general.architecture",
                        fmt::format("is '{}'; attn reads {}", arch, known), true);
}

/// A scalar value as config.json would hold it: a float32 by its shortest decimal (1e-06, not
/// 9.99999997e-07), so that the family reads the number the converter was given.
json value_of(const io::GgufFile& file, const std::string& key, const io::GgufValue& v) {
    if (v.is_array)
        throw io::GgufError(Kind::metadata, file.path(), key,
                            "is an array (" + v.type_text() + "); attn reads one value", true);
    if (v.type == io::GgufType::string) return std::string(v.strings.at(0));
    if (v.type == io::GgufType::boolean) return v.number() != 0;
    if (v.type == io::GgufType::f32)
        return std::strtod(fmt::format("{}", static_cast<float>(v.number())).c_str(), nullptr);
    if (v.is_float()) return v.number();
    return v.integer();
}

/// The converter's llama3 factors for head_dim d, base b and (factor, low, high, M): for
/// inv_freq_i = 1 / b^(2i/d) in float32 and wavelength w = 2 pi / inv_freq_i, 1 when w < M / high,
/// factor when w > M / low, else 1 / ((1 - s) / factor + s), s = (M / w - low) / (high - low).
std::vector<double> llama3_factors(std::size_t d, double base, double factor, double low,
                                   double high, double M) {
    std::vector<double> out;
    for (std::size_t i = 0; i < d; i += 2) {
        const float exponent = static_cast<float>(i) / static_cast<float>(d);
        const float inv_freq = 1.0f / std::pow(static_cast<float>(base), exponent);
        const double w = 2 * std::numbers::pi / inv_freq;
        const double s = (M / w - low) / (high - low);
        out.push_back(w < M / high ? 1.0 : w > M / low ? factor : 1 / ((1 - s) / factor + s));
    }
    return out;
}

/// rope_freqs (llama3 scaling, as the converter writes it: one divisor of each inverse
/// frequency) as rope_scaling: the parameters of Llama 3.1 to 3.3 (low 1, high 4, M 8192; the
/// factor is the largest divisor) when they give the stored values within 1e-6, else refused.
json llama3(const io::GgufFile& file, const io::GgufTensorInfo& t, const json& config) {
    const runtime::TensorView v = file.view(t);
    std::vector<float> stored(v.numel());
    v.to_float(stored);
    const double heads = config.value("num_attention_heads", 1.0);
    const std::size_t d = config.contains("head_dim")
                              ? config["head_dim"].get<std::size_t>()
                              : static_cast<std::size_t>(config.value("hidden_size", 0.0) / heads);
    const double factor = stored.empty() ? 0.0 : *std::max_element(stored.begin(), stored.end());
    const auto want = llama3_factors(d, config.value("rope_theta", 10000.0), factor, 1, 4, 8192);
    bool same = want.size() == stored.size() && factor >= 1;
    for (std::size_t i = 0; same && i < want.size(); ++i)
        same = std::abs(want[i] - stored[i]) <= 1e-6 * factor;
    if (!same)
        throw io::GgufError(Kind::unsupported, file.path(), t.name,
                            "holds RoPE frequency factors that are not llama3's with low 1, high "
                            "4 and original context 8192, which attn does not read");
    return {{"rope_type", "llama3"},
            {"factor", factor},
            {"low_freq_factor", 1.0},
            {"high_freq_factor", 4.0},
            {"original_max_position_embeddings", 8192}};
}

// The same layouts in attn (the families' tables) and io (the store).
static_assert(static_cast<int>(model::GgufLayout::transposed) ==
                  static_cast<int>(io::GgufStored::transposed) &&
              static_cast<int>(model::GgufLayout::rope_interleaved) ==
                  static_cast<int>(io::GgufStored::rope_interleaved) &&
              static_cast<int>(model::GgufLayout::plus_one) ==
                  static_cast<int>(io::GgufStored::plus_one));

}  // namespace

GgufModel gguf_model(const io::GgufFile& file) {
    const io::GgufMetadata& meta = file.metadata();
    const std::string arch(meta.get_string("general.architecture"));
    const model::Family* family = family_of(file, arch);
    json j{{"model_type", family->model_type}};
    for (const auto& [key, config_key] : family->gguf.keys) {
        const std::string name = arch + "." + std::string(key);
        if (const io::GgufValue* v = meta.find(name))
            j[std::string(config_key)] = value_of(file, name, *v);
    }
    const io::GgufTensorInfo* embd = file.find("token_embd.weight");
    if (embd == nullptr || embd->ne.size() != 2)
        throw io::GgufError(Kind::missing, file.path(), "token_embd.weight",
                            "is absent or not a matrix (it gives vocab_size)");
    j["vocab_size"] = embd->ne[1];
    j["tie_word_embeddings"] = file.find("output.weight") == nullptr;
    if (const io::GgufTensorInfo* t = file.find("rope_factors_long.weight"))
        throw io::GgufError(Kind::unsupported, file.path(), t->name,
                            "holds longrope's frequency factors, which attn does not read from "
                            "GGUF files");
    if (const auto dims = meta.unsigned_integer(arch + ".rope.dimension_count")) {
        const double heads = j.value("num_attention_heads", 0.0);
        const double head_dim = j.contains("head_dim") ? j["head_dim"].get<double>()
                                : heads > 0            ? j.value("hidden_size", 0.0) / heads
                                                       : 0.0;
        if (head_dim > 0 && static_cast<double>(*dims) < head_dim)
            j["partial_rotary_factor"] = static_cast<double>(*dims) / head_dim;
    }
    if (const auto type = meta.string(arch + ".rope.scaling.type"); type && *type != "none") {
        if (*type != "linear" && *type != "yarn")
            throw io::GgufError(Kind::unsupported, file.path(), arch + ".rope.scaling.type",
                                fmt::format("is '{}'; attn reads linear and yarn", *type), true);
        json s{{"rope_type", std::string(*type)},
               {"factor", meta.get_number(arch + ".rope.scaling.factor")}};
        if (const auto orig = meta.unsigned_integer(arch + ".rope.scaling.original_context_length"))
            s["original_max_position_embeddings"] = *orig;
        j["rope_scaling"] = s;
    }
    if (const io::GgufTensorInfo* t = file.find("rope_freqs.weight"))
        j["rope_scaling"] = llama3(file, *t, j);
    GgufModel m{j.dump(), {}};
    // The tensors: the family's names for each block, ".weight" and ".bias" alike.
    const model::ModelConfig c = model::parse_config(j);
    for (const model::GgufTensor& t : family->gguf.tensors) {
        const std::string gguf(t.gguf), hf(t.hf);
        const bool block = gguf.find("{}") != std::string::npos;
        for (std::size_t layer = 0; layer < (block ? c.num_layers : 1); ++layer) {
            auto at = [&](std::string s) {
                if (const auto p = s.find("{}"); p != std::string::npos)
                    s.replace(p, 2, std::to_string(layer));
                return s;
            };
            for (const char* suffix : {".weight", ".bias"})
                m.names.push_back({at(hf) + suffix, at(gguf) + suffix,
                                   static_cast<io::GgufStored>(t.layout), c.head_dim});
        }
    }
    return m;
}

}  // namespace attn::cli
