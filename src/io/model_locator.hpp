// Finding a Hugging Face model on this disk, never on the network.
//
// spec is a folder holding config.json (taken as it is when it exists), or ORG/NAME (or a
// hub name without ORG, such as gpt2) looked up in the local Hugging Face cache:
// $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub; there models--ORG--NAME/snapshots/<commit>/, the commit read from
// refs/<revision> (revision "main" by default), or revision itself when it names a snapshot.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn::io {

/// No model at spec: what() names every place looked at and how to get the model onto the
/// disk; `looked_at` lists them in the order they were tried.
struct ModelNotFound : std::runtime_error {
    ModelNotFound(const std::string& what, std::vector<std::filesystem::path> looked_at)
        : std::runtime_error(what), looked_at(std::move(looked_at)) {}
    std::vector<std::filesystem::path> looked_at;
};

/// A file of the model whose blob is missing: a symbolic link (a cache snapshot's file, into
/// blobs/) that leads nowhere, as a pruned cache or an interrupted copy leaves it. what() names
/// the file and the blob.
struct MissingBlob : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Throws MissingBlob when `file` is a symbolic link to nothing; returns otherwise (a file, a
/// link to one, or nothing at all).
void check_blob(const std::filesystem::path& file);

/// The folder holding the model's files (config.json, weights, tokenizer files). Files in a
/// cache snapshot are usually symlinks into blobs/; the folder returned is the snapshot.
std::filesystem::path locate_model(const std::string& spec, const std::string& revision = "main");

}  // namespace attn::io
