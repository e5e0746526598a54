// A config.json's RoPE keys onto positions::RopeParameters: rope_theta (base b) and the
// rope_scaling dictionary {"rope_type" (or "type"): ..., "factor": ..., ...} as transformers'
// modeling_rope_utils.py reads them.
//   dynamic's M is max_position_embeddings (as _compute_dynamic_ntk_parameters);
//   yarn's is the dictionary's original_max_position_embeddings, else max_position_embeddings.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>

#include "attn/model/config.hpp"
#include "attn/positions/rope.hpp"

namespace attn::model {

/// config: the whole config.json object; rotary_dim: the d the heads rotate (head_dim);
/// max_positions: the family's max_position_embeddings. ConfigError naming the key
/// ("rope_theta", "rope_scaling.factor", "head_dim", ...) for a value positions::validate
/// refuses, a key of the wrong type, or a scaling type attn lacks.
positions::RopeParameters parse_rope(const nlohmann::json& config, std::size_t rotary_dim,
                                     std::size_t max_positions);

}  // namespace attn::model
