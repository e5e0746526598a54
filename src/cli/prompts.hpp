// --prompts FILE of attend --model and heads, read one prompt at a time: memory does not grow
// with the number of prompts. FILE ("-": standard input) holds one text a line (split on \n
// only, kept verbatim, empty lines skipped), or, for a .jsonl file, one object a line,
// {"text": "..."} or {"ids": [...]}. Texts go through the model's tokenizer (its special tokens
// added); ids are checked below the model's vocabulary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/text/tokenizer.hpp"
#include "cli/model_files.hpp"
#include "io/input_file.hpp"

namespace attn::cli {

class PromptReader {
  public:
    /// Opens path (std::system_error, exit 1, when it cannot be). tokenizer: nullptr when the
    /// model has none (a text line is then an error); vocab: the model's vocab_size.
    PromptReader(const std::string& path, const text::Tokenizer* tokenizer, std::size_t vocab);

    /// Whether path's lines are JSON objects (.jsonl).
    static bool jsonl(const std::string& path) { return path.ends_with(".jsonl"); }

    /// The next prompt's ids, or nullopt after the last. UsageError (exit 2) naming the file
    /// and line for a line that is no prompt, a prompt of no tokens, an id beyond vocab, and,
    /// at the end, a file of no prompt at all; std::system_error (exit 1) for a read error.
    std::optional<std::vector<std::int64_t>> next();

    /// "--prompts: FILE, line K" of the last prompt next() gave.
    const std::string& where() const { return where_; }
    /// Prompts given so far.
    std::size_t count() const { return count_; }

  private:
    std::unique_ptr<io::InputFile> input_;
    const text::Tokenizer* tokenizer_;
    std::size_t vocab_;
    bool jsonl_;
    std::size_t line_ = 0, count_ = 0;
    std::string where_;
    bool warned_crlf_ = false;  // one warning a file for lines ending in \r
};

/// Every prompt of path, in order (PromptReader's, for a run that needs them all at once);
/// where (when given) gets each prompt's PromptReader::where(), "--prompts: FILE, line K".
std::vector<std::vector<std::int64_t>> read_prompts(const std::string& path,
                                                    const text::Tokenizer* tokenizer,
                                                    std::size_t vocab,
                                                    std::vector<std::string>* where = nullptr);

/// The threads a run over many prompts runs them on, one prompt a thread
/// (runtime/ordered_pipeline.hpp): thread_limit() for a safetensors checkpoint, whose blocks
/// hand back only mapped pages (another prompt reading them faults them in again); 1 for a GGUF
/// file, whose blocks free the tensors they converted while another prompt may read them.
std::size_t prompt_workers(const OpenModel& m);

}  // namespace attn::cli
