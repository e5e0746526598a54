// --model M [--revision R]: the model's folder found (io::locate_model), its config.json read
// (model::parse_config), the memory a forward needs checked against --max-memory, then its
// safetensors mapped and every tensor the family reads checked by name and shape. Every
// subcommand with --model opens its model here, so each fault gets the same message and exit
// status: not found 1; anything malformed, unsupported or too large 2, before any allocation.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "attn/model/config.hpp"
#include "attn/model/tensors.hpp"
#include "io/safetensors.hpp"
#include "runtime/tensor_view.hpp"

namespace attn::cli {

struct ModelOptions {
    std::string model;              // --model: a folder or ORG/NAME
    std::string revision = "main";  // --revision: a ref name or a commit
    bool revision_given = false;
};

struct OpenModel {
    std::filesystem::path folder;
    model::ModelConfig config;
    io::Checkpoint checkpoint;
    std::vector<model::TensorSpec> specs;      // model::model_tensors(config)
    std::vector<runtime::TensorView> tensors;  // specs[i]'s tensor, mapped
};

/// The model of opt, checked for a forward over n tokens with values of value_bytes:
/// model_folder, read_model_config, then open_weights.
OpenModel open_model(const ModelOptions& opt, std::uint64_t n, std::uint64_t value_bytes);

/// The folder and config only (no weights), for commands that need no tensor, or that learn
/// n from the config (attend's tokens) before open_weights.
std::filesystem::path model_folder(const ModelOptions& opt);
model::ModelConfig read_model_config(const std::filesystem::path& folder);

/// Given m.folder and m.config: the bytes of a forward over n tokens with values of
/// value_bytes checked against --max-memory before anything is mapped or allocated, then the
/// checkpoint mapped and every tensor the family reads checked (m.checkpoint, specs, tensors).
void open_weights(OpenModel& m, std::uint64_t n, std::uint64_t value_bytes);

}  // namespace attn::cli
