// A config.json's RoPE keys onto positions::RopeParameters, as transformers reads them
// (modeling_rope_utils.py: RotaryEmbeddingConfigMixin and the _compute_*_parameters).
//
// Where the dictionary is: "rope_scaling" {"rope_type" (or "type"): ..., "factor": ...} beside
// a top-level "rope_theta" (transformers 4), or "rope_parameters" holding rope_theta as well
// (transformers 5); rope_scaling wins when both are non-empty. rope_parameters may be nested by
// layer type ({"full_attention": {...}, "sliding_attention": {...}}, Gemma 3): the family names
// the layer type it wants (rope_layer_types lists them).
//   b = the dictionary's rope_theta, else the top-level rope_theta, else the family's default;
//   d = int(head_dim x partial_rotary_factor) (the dictionary's, else the top-level one, else
//       the family's own key), the first d dimensions of a head rotated;
//   M (llama3, yarn, longrope) = the top-level original_max_position_embeddings (Phi-3), else
//       the family's class default, else the dictionary's, else max_position_embeddings (a
//       nested dictionary: its own, else max_position_embeddings); dynamic's M is
//       max_position_embeddings (_compute_dynamic_ntk_parameters);
//   yarn's factor null, and longrope's absent or null: max_position_embeddings / M;
//   yarn's beta_fast, beta_slow absent, null or 0: 32 and 1.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attn/model/config.hpp"
#include "attn/positions/rope.hpp"

namespace attn::model {

/// What parse_rope needs of the family besides config.json.
struct RopeContext {
    std::size_t head_dim = 0;          // a head's width; d = int(head_dim x partial_rotary_factor)
    std::size_t max_positions = 0;     // max_position_embeddings as the family reads it
    std::string layer_type;            // a key of a nested rope_parameters; "" for one dictionary
    double default_theta = 10000.0;    // rope_theta when config.json has none
    double partial_rotary_factor = 1;  // when config.json has none (gpt_neox's rotary_pct)
    std::optional<double> original_max_positions;  // the family's class default (Phi-3: 4096)
};

/// ConfigError naming the key ("rope_theta", "rope_scaling.factor",
/// "rope_parameters.full_attention.short_factor", "head_dim", "partial_rotary_factor", ...) for a
/// value positions::validate refuses, a key of the wrong type, a scaling type attn lacks, or a
/// nested rope_parameters without the layer type asked for.
positions::RopeParameters parse_rope(const nlohmann::json& config, const RopeContext& context);
/// One dictionary for every layer, d = head_dim unless partial_rotary_factor says otherwise.
positions::RopeParameters parse_rope(const nlohmann::json& config, std::size_t head_dim,
                                     std::size_t max_positions);

/// The layer types a nested rope_parameters holds, sorted; empty when one
/// dictionary (or none) serves every layer.
std::vector<std::string> rope_layer_types(const nlohmann::json& config);

}  // namespace attn::model
