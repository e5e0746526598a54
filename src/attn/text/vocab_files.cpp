#include "attn/text/vocab_files.hpp"

#include <nlohmann/json.hpp>

#include "attn/text/bpe.hpp"
#include "attn/text/sentencepiece_model.hpp"
#include "attn/text/unicode.hpp"
#include "attn/text/wordpiece.hpp"

namespace attn::text {

namespace {

// The lines of a text file, without their "\n" or "\r\n".
std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return lines;
}

}  // namespace

Tokenizer tokenizer_from_gpt2_files(std::string_view vocab_json, std::string_view merges_txt) {
    nlohmann::json vocab;
    try {
        vocab = nlohmann::json::parse(vocab_json.begin(), vocab_json.end());
    } catch (const nlohmann::json::exception& e) {
        throw TokenizerError(std::string("vocab.json: not valid JSON: ") + e.what());
    }
    if (!vocab.is_object()) throw TokenizerError("vocab.json: expected an object of token: id");
    Vocabulary v;
    v.reserve(vocab.size());
    for (const auto& [token, id] : vocab.items()) {
        if (!id.is_number_integer())
            throw TokenizerError("vocab.json: \"" + token + "\": expected an integer id");
        v.add(token, id.get<TokenId>());
    }
    if (!is_valid_utf8(merges_txt)) throw TokenizerError("merges.txt: not valid UTF-8");
    std::vector<MergePair> merges;  // views into merges_txt
    const auto lines = lines_of(merges_txt);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        if (line.empty() || (i == 0 && line.rfind("#version", 0) == 0)) continue;
        const std::size_t space = line.find(' ');
        if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos)
            throw TokenizerError("merges.txt: line " + std::to_string(i + 1) +
                                 " is not two tokens separated by one space");
        merges.emplace_back(line.substr(0, space), line.substr(space + 1));
    }
    Tokenizer::Parts parts;
    std::vector<AddedToken> added;
    if (const auto id = v.id("<|endoftext|>"))
        added.push_back({"<|endoftext|>", *id, true, false, false, false, false});
    try {
        parts.model = std::make_shared<Bpe>(std::move(v), merges, BpeOptions{});
    } catch (const TokenizerError& e) {
        throw TokenizerError(std::string("merges.txt: ") + e.what());
    }
    parts.added = AddedVocabulary(std::move(added));
    parts.pre_tokenizer.steps.push_back(byte_level(false, true));
    parts.kind = "byte-level BPE";
    parts.spelling = Spelling::byte_level;
    return Tokenizer(std::move(parts));
}

Tokenizer tokenizer_from_vocab_txt(std::string_view vocab_txt, const BertOptions& options) {
    if (!is_valid_utf8(vocab_txt)) throw TokenizerError("vocab.txt: not valid UTF-8");
    Vocabulary v;
    const auto lines = lines_of(vocab_txt);
    for (std::size_t i = 0; i < lines.size(); ++i)
        v.add(std::string(lines[i]), static_cast<TokenId>(i));
    Tokenizer::Parts parts;
    std::vector<AddedToken> added;
    for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"})
        if (const auto id = v.id(special))
            added.push_back({special, *id, true, false, false, false, false});
    const auto cls = v.id("[CLS]"), sep = v.id("[SEP]");
    if (!cls || !sep) throw TokenizerError("vocab.txt: [CLS] and [SEP] must be in the vocabulary");
    parts.post_processor = {{{*cls, "[CLS]"}}, {{*sep, "[SEP]"}}};
    try {
        parts.model = std::make_shared<WordPiece>(std::move(v), WordPieceOptions{});
    } catch (const TokenizerError& e) {
        throw TokenizerError(std::string("vocab.txt: ") + e.what());
    }
    parts.added = AddedVocabulary(std::move(added));
    BertNormalization b;
    b.lowercase = options.lowercase;
    b.strip_accents = options.strip_accents.value_or(options.lowercase);
    b.handle_chinese_chars = options.chinese_chars;
    parts.normalizer.steps.push_back(bert_normalizer(b));
    parts.pre_tokenizer.steps.push_back(bert_pre_tokenizer());
    parts.kind = "WordPiece";
    parts.spelling = Spelling::wordpiece;
    return Tokenizer(std::move(parts));
}

Tokenizer tokenizer_from_sentencepiece(std::string_view model_bytes,
                                       const SentencePieceOptions& options) {
    auto model = std::make_shared<SentencePieceModel>(model_bytes);
    Tokenizer::Parts parts;
    std::vector<AddedToken> added;
    const auto piece = [&](TokenId id) { return std::string(*model->vocabulary().token(id)); };
    for (const TokenId id : {model->bos(), model->eos()})
        if (id >= 0) added.push_back({piece(id), id, true, false, false, false, false});
    if (options.add_bos && model->bos() >= 0)
        parts.post_processor.before.push_back({model->bos(), piece(model->bos())});
    if (options.add_eos && model->eos() >= 0)
        parts.post_processor.after.push_back({model->eos(), piece(model->eos())});
    parts.added = AddedVocabulary(std::move(added));
    parts.model = std::move(model);
    parts.kind = "SentencePiece";
    parts.spelling = Spelling::metaspace;
    return Tokenizer(std::move(parts));
}

}  // namespace attn::text
