// Normalizers: what a tokenizer does to the text before splitting it, as tokenizer.json's
// "normalizer" lists them (Hugging Face tokenizers, normalizers/*.rs). Each step maps the
// whole string; a Normalizer applies its steps in order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attn/text/regex.hpp"
#include "attn/text/unicode.hpp"

namespace attn::text {

using NormalizerStep = std::function<std::string(std::string)>;

struct Normalizer {
    std::vector<NormalizerStep> steps;
    std::string operator()(std::string text) const;
};

NormalizerStep unicode_form(NormalForm form);
NormalizerStep lowercase();
/// Drops nonspacing marks (Mn); tokenizer.json puts NFD before it.
NormalizerStep strip_accents();
/// Puts `prefix` before a non-empty text (Mistral's and Llama 2's "▁").
NormalizerStep prepend(std::string prefix);
/// Every match of `pattern` replaced by `content`.
NormalizerStep replace(Regex pattern, std::string content);
/// Removes white space at the left and/or the right end.
NormalizerStep strip(bool left, bool right);

/// BertNormalizer, in its order: clean_text (drop U+0000, U+FFFD and controls, any white
/// space becomes ' '), handle_chinese_chars (' ' around each CJK ideograph), strip_accents
/// (NFD, then drop Mn), lowercase.
struct BertNormalization {
    bool clean_text = true;
    bool handle_chinese_chars = true;
    bool strip_accents = true;  // tokenizer.json's null means: as lowercase
    bool lowercase = true;
};
NormalizerStep bert_normalizer(BertNormalization options);

}  // namespace attn::text
