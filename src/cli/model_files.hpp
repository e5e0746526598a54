// --model M [--revision R]: declared once here for every command that takes a model, then the
// model opened through io::ModelSource (its folder, config.json, tokenizer files and weights),
// its config.json read (model::parse_config), the memory a forward needs checked against
// --max-memory, and every tensor the family reads checked by name and shape. Every subcommand
// with --model opens its model here, so each fault gets the same message and exit status: not
// found 1; anything malformed, unsupported or too large 2, before any allocation.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "attn/model/config.hpp"
#include "attn/model/tensors.hpp"
#include "io/model_source.hpp"
#include "runtime/tensor_store.hpp"

namespace attn::cli {

struct ModelOptions {
    std::string model;              // --model: a folder or ORG/NAME
    std::string revision = "main";  // --revision: a ref name or a commit
    CLI::Option* model_opt = nullptr;
    CLI::Option* revision_opt = nullptr;
    bool given() const { return model_opt && model_opt->count() > 0; }
    bool revision_given() const { return revision_opt && revision_opt->count() > 0; }
};

/// Adds --model M and --revision R to app (an option group or a subcommand): the one
/// declaration of both for every command.
void add_model_options(CLI::App& app, ModelOptions& opt);

/// The model of opt, its weights not yet opened: ModelSource::open with the options' errors.
io::ModelSource open_source(const ModelOptions& opt);

struct OpenModel {
    io::ModelSource source;
    model::ModelConfig config;
    /// The weights after open_weights().
    const runtime::TensorStore& weights() const { return source.weights(); }
};

/// The source of opt and its config.json (no weights), for commands that learn n from the
/// config (attend's tokens) before open_weights.
OpenModel open_model_config(const ModelOptions& opt);

/// The model of opt, checked for a forward over n tokens with values of value_bytes:
/// open_model_config, then open_weights.
OpenModel open_model(const ModelOptions& opt, std::uint64_t n, std::uint64_t value_bytes);

/// The bytes of a forward over n tokens with values of value_bytes, keeping `keep`
/// (model::forward_bytes), checked against --max-memory before anything is mapped or
/// allocated, then the checkpoint mapped and every tensor the family reads checked. A refusal
/// says what would fit: how many tokens, the same tokens without the lens (what it needs), and
/// without n x n arrays.
void open_weights(OpenModel& m, std::uint64_t n, std::uint64_t value_bytes,
                  const model::ForwardKeep& keep = {});

}  // namespace attn::cli
