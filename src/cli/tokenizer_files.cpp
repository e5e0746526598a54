#include "cli/tokenizer_files.hpp"

#include "attn/model/families.hpp"
#include "attn/text/tokenizer_json.hpp"
#include "attn/text/vocab_files.hpp"

namespace attn::cli {

namespace {

// Runs make() with the file's name before any TokenizerError it throws.
template <class F>
text::Tokenizer naming_file(const std::string& name, F&& make) {
    try {
        return make();
    } catch (const text::TokenizerError& e) {
        const std::string what = e.what();
        throw text::TokenizerError(what.rfind(name, 0) == 0 ? what : name + ": " + what);
    }
}

}  // namespace

text::Tokenizer load_tokenizer(const io::ModelSource& source) {
    using io::TokenizerFiles;
    io::TokenizerText t;
    try {
        t = source.tokenizer();
    } catch (const io::ModelSourceError& e) {
        throw text::TokenizerError(e.what());
    }
    const std::string name = t.path.string();
    switch (t.files) {
        case TokenizerFiles::none:
            break;
        case TokenizerFiles::tokenizer_json:
            return naming_file(name, [&] { return text::tokenizer_from_json(t.bytes); });
        case TokenizerFiles::vocab_json_merges:
            return naming_file(name,
                               [&] { return text::tokenizer_from_gpt2_files(t.bytes, t.merges); });
        case TokenizerFiles::vocab_txt: {
            text::BertOptions o;
            o.lowercase = t.do_lower_case.value_or(true);
            o.strip_accents = t.strip_accents;
            o.chinese_chars = t.tokenize_chinese_chars.value_or(true);
            return naming_file(name, [&] { return text::tokenizer_from_vocab_txt(t.bytes, o); });
        }
        case TokenizerFiles::sentencepiece: {
            // Without add_bos_token/add_eos_token: the family's (T5 ends the text with </s>,
            // Llama begins it with <s>).
            text::SentencePieceOptions o{t.add_bos_token.value_or(false),
                                         t.add_eos_token.value_or(false)};
            if (!t.add_bos_token && !t.add_eos_token) {
                const model::Family* f = t.model_type ? model::find_family(*t.model_type) : nullptr;
                o = f ? text::SentencePieceOptions{f->sentencepiece_bos, f->sentencepiece_eos}
                      : text::SentencePieceOptions{true, false};
            }
            return naming_file(name,
                               [&] { return text::tokenizer_from_sentencepiece(t.bytes, o); });
        }
    }
    throw text::TokenizerError(source.folder().string() + ": no tokenizer");
}

}  // namespace attn::cli
