// A model's files as attn reads them, found and opened in one place: what --model names (a
// folder, or ORG/NAME in the Hugging Face cache: model_locator), its config.json, its tokenizer
// files (as transformers' AutoTokenizer would pick them) and its weights (safetensors, mapped:
// Checkpoint), the latter as a runtime::TensorStore the families read tensors through by name,
// dtype and shape. Another kind of source (a GGUF file, ollama:NAME) is another way to give
// these same pieces: a GGUF file (a path ending in .gguf, or ollama:NAME[:TAG]'s blob) is mapped
// and its header checked when opened; cli makes its config.json and tensor names from the
// metadata (set_gguf_model) and the weights are a GgufStore. Never the network. Implemented in
// model_locator.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/gguf_store.hpp"
#include "runtime/tensor_store.hpp"

namespace attn::io {

class Checkpoint;
class GgufFile;

/// What the command line names: --model and --revision (whether typed).
struct ModelSpec {
    std::string model;
    std::string revision = "main";
    bool revision_given = false;
};

/// A model source that cannot be used as named (cli words each kind for its option, exit 2).
/// what() is the detail; `path` the file or folder at fault.
struct ModelSourceError : std::invalid_argument {
    enum class Kind {
        revision_of_folder,  // --revision with a folder
        empty_revision,      // --revision ""
        no_config,           // the folder holds no config.json
        config_too_large,    // a config.json above 16 MiB
        no_tokenizer,        // none of the tokenizer files
        tokenizer_config     // tokenizer_config.json or config.json is not a JSON object
    };
    ModelSourceError(Kind kind, std::filesystem::path path, const std::string& detail);
    Kind kind;
    std::filesystem::path path;
};

/// The files a tokenizer is read from, in the order they are looked for: tokenizer.json,
/// vocab.json + merges.txt, vocab.txt, tokenizer.model or spiece.model.
enum class TokenizerFiles { none, tokenizer_json, vocab_json_merges, vocab_txt, sentencepiece };

/// A tokenizer's files, read whole (attn::text builds the tokenizer from them).
struct TokenizerText {
    TokenizerFiles files = TokenizerFiles::none;
    std::filesystem::path path;  // the file messages name: tokenizer.json, vocab.json, ...
    std::string bytes;           // its contents
    std::string merges;          // merges.txt, with vocab.json
    // tokenizer_config.json's options of the slow tokenizers, when it gives them
    std::optional<bool> do_lower_case, strip_accents, tokenize_chinese_chars;
    std::optional<bool> add_bos_token, add_eos_token;
    std::optional<std::string> model_type;  // config.json's, read for SentencePiece only
};

class ModelSource {
  public:
    /// The model spec names (io::locate_model); ModelNotFound when it is nowhere,
    /// ModelSourceError for a --revision that cannot apply.
    static ModelSource open(const ModelSpec& spec);
    ModelSource(ModelSource&&) noexcept;
    ModelSource& operator=(ModelSource&&) noexcept;
    ~ModelSource();

    /// The model's folder; a GGUF file's path.
    const std::filesystem::path& folder() const { return folder_; }
    /// config.json; the GGUF file, whose metadata stands for it.
    std::filesystem::path config_path() const;
    /// config.json's text (for a GGUF file, what set_gguf_model gave): ModelSourceError when
    /// absent or above 16 MiB, std::system_error when unreadable.
    std::string config_json() const;

    /// The GGUF file mapped, its header checked (GgufError when malformed); nullptr for a folder.
    const GgufFile* gguf() const { return gguf_.get(); }
    /// A GGUF file's config.json and its tensors under the Hugging Face names (cli/model_gguf).
    void set_gguf_model(std::string config_json, std::vector<GgufTensorName> names);

    /// Which tokenizer files the folder holds (a GGUF file's byte-level BPE tokenizer.ggml.*
    /// keys count as a tokenizer.json: io/gguf_tokenizer).
    TokenizerFiles tokenizer_files() const;
    /// Those files read (each reserved against the memory budget at 16 bytes per byte, what
    /// parsing takes): ModelSourceError no_tokenizer or tokenizer_config.
    TokenizerText tokenizer() const;

    /// Maps the weights, every header checked (io::CheckpointError); once.
    void open_weights();
    /// The weights, after open_weights() (std::logic_error before).
    const runtime::TensorStore& weights() const;

  private:
    explicit ModelSource(std::filesystem::path folder);
    std::filesystem::path folder_;
    std::unique_ptr<Checkpoint> checkpoint_;
    std::shared_ptr<const GgufFile> gguf_;
    std::string gguf_config_;
    std::vector<GgufTensorName> gguf_names_;
    std::unique_ptr<GgufStore> gguf_store_;
};

}  // namespace attn::io
