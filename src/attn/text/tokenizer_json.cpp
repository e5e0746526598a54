#include "attn/text/tokenizer_json.hpp"

#include "attn/text/bpe.hpp"
#include "attn/text/json_fields.hpp"
#include "attn/text/json_scanner.hpp"
#include "attn/text/tokenizer_json_large.hpp"
#include "attn/text/tokenizer_json_steps.hpp"
#include "attn/text/wordpiece.hpp"

namespace attn::text {

using namespace json_fields;

namespace {

// model (the tree, where vocab and merges are {} and [] when their values were cut out: see
// tokenizer_json_large.hpp) and the values read from the text.
struct ModelFields {
    const Json& model;
    LargeFields& large;
};

// The tree of a cut value, for the cases the fast reading leaves to it.
Json tree_of(std::string_view text, const Json& in_rest) {
    return text.empty() ? in_rest : Json::parse(text.begin(), text.end());
}

Vocabulary read_vocabulary(const ModelFields& fields) {
    const Json* cut = member(fields.model, "vocab");
    if (!cut || !cut->is_object()) fail("model.vocab", "expected an object of token: id");
    if (fields.large.vocabulary) return std::move(*fields.large.vocabulary);
    const Json vocab = tree_of(fields.large.vocab_text, *cut);
    Vocabulary v;
    v.reserve(vocab.size());
    for (const auto& [token, id] : vocab.items()) v.add(token, integer(id, "model.vocab." + token));
    return v;
}

// "a b" (one space) or ["a", "b"]: views into the document, or into large.arena for strings
// that held escapes, or into `owned` for the tree's strings.
std::vector<MergePair> read_merges(const ModelFields& fields, std::vector<std::string>& owned) {
    const Json* cut = member(fields.model, "merges");
    if (!cut) return {};
    if (!cut->is_array()) fail("model.merges", "expected an array");
    if (fields.large.merges) return std::move(*fields.large.merges);
    const Json list = tree_of(fields.large.merges_text, *cut);
    std::vector<MergePair> merges;
    merges.reserve(list.size());
    owned.reserve(2 * list.size());  // never reallocated: the views stay valid
    const auto pair = [&](std::string left, std::string right) {
        owned.push_back(std::move(left));
        owned.push_back(std::move(right));
        merges.emplace_back(owned[owned.size() - 2], owned.back());
    };
    for (std::size_t i = 0; i < list.size(); ++i) {
        const Json& m = list[i];
        const std::string where = "model.merges[" + std::to_string(i) + "]";
        if (m.is_string()) {
            const std::string s = m.get<std::string>();
            const std::size_t space = s.find(' ');
            if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
                fail(where, "\"" + s + "\" is not two tokens separated by one space");
            pair(s.substr(0, space), s.substr(space + 1));
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            pair(m[0].get<std::string>(), m[1].get<std::string>());
        } else {
            fail(where, "expected \"a b\" or [\"a\", \"b\"]");
        }
    }
    return merges;
}

std::shared_ptr<const Model> read_model(const Json& root, LargeFields& large) {
    const Json* model = member(root, "model");
    if (!model || !model->is_object()) fail("model", "expected an object");
    const ModelFields fields{*model, large};
    std::string type = string(*model, "type", "", "model");
    if (type.empty()) type = member(*model, "merges") ? "BPE" : "WordPiece";
    try {
        if (type == "BPE") {
            BpeOptions o;
            if (member(*model, "unk_token")) o.unk_token = string(*model, "unk_token", "", "model");
            o.continuing_subword_prefix = string(*model, "continuing_subword_prefix", "", "model");
            o.end_of_word_suffix = string(*model, "end_of_word_suffix", "", "model");
            o.fuse_unk = boolean(*model, "fuse_unk", false, "model");
            o.byte_fallback = boolean(*model, "byte_fallback", false, "model");
            o.ignore_merges = boolean(*model, "ignore_merges", false, "model");
            std::vector<std::string> owned;
            return std::make_shared<Bpe>(read_vocabulary(fields), read_merges(fields, owned), o);
        }
        if (type == "WordPiece") {
            WordPieceOptions o;
            o.unk_token = string(*model, "unk_token", "[UNK]", "model");
            o.continuing_subword_prefix =
                string(*model, "continuing_subword_prefix", "##", "model");
            if (const Json* m = member(*model, "max_input_chars_per_word")) {
                const std::int64_t n = integer(*m, "model.max_input_chars_per_word");
                if (n < 0) fail("model.max_input_chars_per_word", "must not be negative");
                o.max_input_chars_per_word = static_cast<std::size_t>(n);
            }
            return std::make_shared<WordPiece>(read_vocabulary(fields), o);
        }
    } catch (const TokenizerError& e) {
        const std::string what = e.what();
        if (what.rfind("model", 0) == 0) throw;
        fail("model", what);
    }
    fail("model.type", "\"" + type + "\" is not supported (BPE, WordPiece)");
}

AddedVocabulary read_added_tokens(const Json& root) {
    std::vector<AddedToken> tokens;
    const Json* list = member(root, "added_tokens");
    if (!list) return AddedVocabulary{};
    if (!list->is_array()) fail("added_tokens", "expected an array");
    for (std::size_t i = 0; i < list->size(); ++i) {
        const Json& t = (*list)[i];
        const std::string where = "added_tokens[" + std::to_string(i) + "]";
        const Json* id = member(t, "id");
        if (!id) fail(where + ".id", "expected an integer");
        AddedToken a;
        a.id = integer(*id, where + ".id");
        a.content = string(t, "content", "", where);
        a.special = boolean(t, "special", false, where);
        a.lstrip = boolean(t, "lstrip", false, where);
        a.rstrip = boolean(t, "rstrip", false, where);
        a.normalized = boolean(t, "normalized", !a.special, where);
        a.single_word = boolean(t, "single_word", false, where);
        if (!is_valid_utf8(a.content)) fail(where + ".content", "not valid UTF-8");
        tokens.push_back(std::move(a));
    }
    return AddedVocabulary(std::move(tokens));
}

// [token, id] of BertProcessing's and RobertaProcessing's cls and sep.
Token token_pair(const Json& object, const char* key, const std::string& where) {
    const Json* p = member(object, key);
    if (!p || !p->is_array() || p->size() != 2 || !(*p)[0].is_string())
        fail(where + "." + key, "expected [token, id]");
    return {integer((*p)[1], where + "." + key + "[1]"), (*p)[0].get<std::string>()};
}

void read_post_processor(const Json& object, const std::string& where, PostProcessor& out) {
    const std::string type = type_of(object, where);
    if (type == "Sequence") {
        const Json& list = array(object, "processors", where);
        for (std::size_t i = 0; i < list.size(); ++i)
            read_post_processor(list[i], where + ".processors[" + std::to_string(i) + "]", out);
    } else if (type == "ByteLevel") {
        // Offsets only: the ids do not change.
    } else if (type == "BertProcessing" || type == "RobertaProcessing") {
        out.before = {token_pair(object, "cls", where)};
        out.after = {token_pair(object, "sep", where)};
    } else if (type == "TemplateProcessing") {
        out.before.clear();
        out.after.clear();
        const Json& single = array(object, "single", where);
        const Json* specials = member(object, "special_tokens");
        bool seen_sequence = false;
        for (std::size_t i = 0; i < single.size(); ++i) {
            const std::string at = where + ".single[" + std::to_string(i) + "]";
            if (member(single[i], "Sequence")) {
                seen_sequence = true;
                continue;
            }
            const Json* piece = member(single[i], "SpecialToken");
            if (!piece) fail(at, "expected {\"SpecialToken\": ...} or {\"Sequence\": ...}");
            const std::string name = string(*piece, "id", "", at + ".SpecialToken");
            const Json* special = specials ? member(*specials, name.c_str()) : nullptr;
            if (!special) fail(at, "\"" + name + "\" is not in special_tokens");
            const std::string sat = where + ".special_tokens." + name;
            const Json& ids = array(*special, "ids", sat);
            const Json& texts = array(*special, "tokens", sat);
            if (ids.size() != texts.size()) fail(sat, "ids and tokens differ in length");
            for (std::size_t k = 0; k < ids.size(); ++k) {
                if (!texts[k].is_string()) fail(sat + ".tokens", "expected strings");
                Token t{integer(ids[k], sat + ".ids"), texts[k].get<std::string>()};
                (seen_sequence ? out.after : out.before).push_back(std::move(t));
            }
        }
    } else {
        fail(where + ".type", "post-processor \"" + type +
                                  "\" is not supported (TemplateProcessing, BertProcessing, "
                                  "RobertaProcessing, ByteLevel, Sequence)");
    }
}

}  // namespace

Tokenizer tokenizer_from_json(std::string_view json_text) {
    LargeFields large;
    Json root;
    try {
        large = scan_large_fields(json_text);
        root = Json::parse(large.rest);
    } catch (const JsonScanError& e) {
        // nlohmann::json's own message, as before the scanner: it refuses the same texts.
        try {
            [[maybe_unused]] const Json tree = Json::parse(json_text.begin(), json_text.end());
        } catch (const Json::exception& tree) {
            throw TokenizerError(std::string("not valid JSON: ") + tree.what());
        }
        throw TokenizerError(std::string("not valid JSON: ") + e.what());
    } catch (const Json::exception& e) {
        throw TokenizerError(std::string("not valid JSON: ") + e.what());
    }
    if (!root.is_object()) throw TokenizerError("expected a JSON object");
    try {
        Tokenizer::Parts parts;
        parts.model = read_model(root, large);
        parts.added = read_added_tokens(root);
        if (const Json* n = member(root, "normalizer"))
            read_normalizer(*n, "normalizer", parts.normalizer);
        const Json* pre = member(root, "pre_tokenizer");
        if (pre) read_pre_tokenizer(*pre, "pre_tokenizer", parts.pre_tokenizer);
        if (const Json* p = member(root, "post_processor"))
            read_post_processor(*p, "post_processor", parts.post_processor);
        const bool bpe = dynamic_cast<const Bpe*>(parts.model.get()) != nullptr;
        const bool bytes = bpe && pre && is_byte_level(*pre);
        parts.kind = !bpe ? "WordPiece" : bytes ? "byte-level BPE" : "BPE";
        // a BPE without byte-level pieces spells spaces "▁" with "<0xHH>" byte fallback
        parts.spelling = !bpe    ? Spelling::wordpiece
                         : bytes ? Spelling::byte_level
                                 : Spelling::metaspace;
        return Tokenizer(std::move(parts));
    } catch (const Json::exception& e) {
        throw TokenizerError(e.what());
    }
}

}  // namespace attn::text
