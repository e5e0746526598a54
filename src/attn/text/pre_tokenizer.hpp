// Pre-tokenizers: how a normalised text is cut into the pieces the model sees one at a time,
// as tokenizer.json's "pre_tokenizer" lists them (Hugging Face tokenizers, pre_tokenizers/*.rs).
// Each step maps every piece to pieces; a PreTokenizer applies its steps in order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attn/text/regex.hpp"

namespace attn::text {

struct Piece {
    std::string text;
    bool at_start = false;  // begins at the start of the text (Metaspace's prepend "first")
};
using Pieces = std::vector<Piece>;
using PreTokenizerStep = std::function<Pieces(const Piece&)>;

struct PreTokenizer {
    std::vector<PreTokenizerStep> steps;
    Pieces operator()(Pieces pieces) const;
};

/// What becomes of the matches of a split (Hugging Face's SplitDelimiterBehavior): removed,
/// a piece of their own (isolated), glued to the piece before or after, or runs of matches
/// made one piece (contiguous).
enum class SplitBehavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

/// Split by a pattern; invert: the text between matches counts as the matches.
PreTokenizerStep split(Regex pattern, SplitBehavior behavior, bool invert);
/// GPT-2's ByteLevel: ' ' put first when add_prefix_space and the piece does not start with
/// one; with use_regex, split by GPT-2's pattern; then every byte into the byte-level alphabet.
PreTokenizerStep byte_level(bool add_prefix_space, bool use_regex);
/// BertPreTokenizer: white space removed, each punctuation character its own piece.
PreTokenizerStep bert_pre_tokenizer();
/// Whitespace: the runs of \w+ and of [^\w\s]+; WhitespaceSplit: the runs between white space.
PreTokenizerStep whitespace();
PreTokenizerStep whitespace_split();
/// Punctuation characters, each by `behavior`.
PreTokenizerStep punctuation(SplitBehavior behavior);
/// Digits: runs of digits (each digit alone when individual) apart from the rest.
PreTokenizerStep digits(bool individual);
/// Metaspace: ' ' replaced by `replacement`, which is put first (always, or only on the piece
/// at the start of the text, or never) unless already there; split keeps each replacement
/// with the word after it.
enum class PrependScheme { always, first, never };
PreTokenizerStep metaspace(std::string replacement, PrependScheme scheme, bool split);

/// GPT-2's pattern: contractions, letters, numbers, other symbols, each with one optional
/// leading space, then white space (a run before a non-space keeps its last space for the word).
inline constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

}  // namespace attn::text
