// The post-processor's template for one text (tokenizer.json's TemplateProcessing "single",
// BertProcessing, RobertaProcessing): special tokens put before and after the text's tokens,
// as tokenizer(text)["input_ids"] has them: <|begin_of_text|> A, <s> A, [CLS] A [SEP].
#pragma once

#include <vector>

#include "attn/text/model.hpp"

namespace attn::text {

struct PostProcessor {
    std::vector<Token> before, after;
};

}  // namespace attn::text
