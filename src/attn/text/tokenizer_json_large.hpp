// tokenizer.json's two large fields read straight from the text, without a JSON tree:
// model.vocab, {"token": id, ...} (Llama 3: 128,000 members), and model.merges, ["a b", ...] or
// [["a", "b"], ...] (Llama 3: 280,000). The rest of the document is small and is parsed by
// nlohmann::json as before, with those two values replaced by {} and [].
//
// The fast reading covers the files as they are made; whatever it does not cover falls back to
// the tree of that one value, which gives today's results and messages exactly:
//   vocab:  a token given twice (a JSON reader keeps the last), an id given twice (the tree's
//           order, sorted by token, decides which token keeps it), an id not an integer of at
//           most 18 digits;
//   merges: an entry neither one string with exactly one space nor an array of two strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/text/bpe.hpp"
#include "attn/text/model.hpp"

namespace attn::text {

struct LargeFields {
    /// The document with the values of model.vocab and model.merges cut out: an object value
    /// becomes {}, an array value []; a value of another kind stays (it is an error later).
    std::string rest;
    /// The cut values' text (empty when absent or not cut), for the fallback's tree.
    std::string_view vocab_text, merges_text;
    /// nullopt: the fast reading declined (see above) or the field is absent.
    std::optional<Vocabulary> vocabulary;
    std::optional<std::vector<MergePair>> merges;
    /// Decoded merge strings that held escapes. Reserved to at least the text's size (and 64
    /// bytes: never the short-string buffer, so a move keeps it) before the first append;
    /// decoding never lengthens a string, so it never reallocates and the views stay valid.
    std::string arena;
};

/// The document must stay alive as long as the result (its views point into it). Throws
/// JsonScanError when the text is not valid JSON; a valid document of any shape is accepted
/// (what is not an object, or a "model" that is not one, is left to the tree's checks).
LargeFields scan_large_fields(std::string_view json_text);

}  // namespace attn::text
