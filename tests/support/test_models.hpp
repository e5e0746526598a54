// The tiny real checkpoints of tests/data/models: a model's config.json parsed.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "attn/model/config.hpp"

namespace attn::test {

/// tests/data/models/<name>/config.json, parsed.
inline attn::model::ModelConfig model_config(const std::string& name) {
    std::ifstream in(std::string(ATTN_TEST_DATA_DIR) + "/models/" + name + "/config.json");
    std::ostringstream text;
    text << in.rdbuf();
    return attn::model::parse_config(text.str());
}

}  // namespace attn::test
