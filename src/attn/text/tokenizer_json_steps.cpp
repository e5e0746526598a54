#include "attn/text/tokenizer_json_steps.hpp"

namespace attn::text {

using namespace json_fields;

namespace {

// A Split's or Replace's pattern: {"String": literal} or {"Regex": pattern}.
Regex pattern(const Json& object, const std::string& where) {
    const Json* p = member(object, "pattern");
    if (!p || !p->is_object())
        fail(where + ".pattern", "expected {\"String\": ...} or {\"Regex\": ...}");
    try {
        if (const Json* s = member(*p, "String"); s && s->is_string())
            return Regex(quote_regex(s->get<std::string>()));
        if (const Json* r = member(*p, "Regex"); r && r->is_string())
            return Regex(r->get<std::string>());
    } catch (const TokenizerError& e) {
        fail(where + ".pattern", e.what());
    }
    fail(where + ".pattern", "expected {\"String\": ...} or {\"Regex\": ...}");
}

SplitBehavior behavior(const Json& object, const std::string& where) {
    const std::string b = string(object, "behavior", "Isolated", where);
    if (b == "Removed") return SplitBehavior::removed;
    if (b == "Isolated") return SplitBehavior::isolated;
    if (b == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
    if (b == "MergedWithNext") return SplitBehavior::merged_with_next;
    if (b == "Contiguous") return SplitBehavior::contiguous;
    fail(where + ".behavior", "\"" + b +
                                  "\" is not one of Removed, Isolated, MergedWithPrevious, "
                                  "MergedWithNext, Contiguous");
}

}  // namespace

void read_normalizer(const Json& object, const std::string& where, Normalizer& out) {
    const std::string type = type_of(object, where);
    if (type == "Sequence") {
        const Json& list = array(object, "normalizers", where);
        for (std::size_t i = 0; i < list.size(); ++i)
            read_normalizer(list[i], where + ".normalizers[" + std::to_string(i) + "]", out);
    } else if (type == "BertNormalizer") {
        BertNormalization b;
        b.clean_text = boolean(object, "clean_text", true, where);
        b.handle_chinese_chars = boolean(object, "handle_chinese_chars", true, where);
        b.lowercase = boolean(object, "lowercase", true, where);
        b.strip_accents = boolean(object, "strip_accents", b.lowercase, where);
        out.steps.push_back(bert_normalizer(b));
    } else if (type == "Lowercase") {
        out.steps.push_back(lowercase());
    } else if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
        const NormalForm form = type == "NFC"    ? NormalForm::nfc
                                : type == "NFD"  ? NormalForm::nfd
                                : type == "NFKC" ? NormalForm::nfkc
                                                 : NormalForm::nfkd;
        out.steps.push_back(unicode_form(form));
    } else if (type == "StripAccents") {
        out.steps.push_back(strip_accents());
    } else if (type == "Strip") {
        out.steps.push_back(strip(boolean(object, "strip_left", true, where),
                                  boolean(object, "strip_right", true, where)));
    } else if (type == "Prepend") {
        out.steps.push_back(prepend(string(object, "prepend", "", where)));
    } else if (type == "Replace") {
        out.steps.push_back(replace(pattern(object, where), string(object, "content", "", where)));
    } else {
        fail(where + ".type", "normalizer \"" + type +
                                  "\" is not supported (BertNormalizer, Lowercase, NFC, NFD, NFKC, "
                                  "NFKD, StripAccents, Strip, Prepend, Replace, Sequence)");
    }
}

void read_pre_tokenizer(const Json& object, const std::string& where, PreTokenizer& out) {
    const std::string type = type_of(object, where);
    if (type == "Sequence") {
        const Json& list = array(object, "pretokenizers", where);
        for (std::size_t i = 0; i < list.size(); ++i)
            read_pre_tokenizer(list[i], where + ".pretokenizers[" + std::to_string(i) + "]", out);
    } else if (type == "ByteLevel") {
        out.steps.push_back(byte_level(boolean(object, "add_prefix_space", true, where),
                                       boolean(object, "use_regex", true, where)));
    } else if (type == "Split") {
        out.steps.push_back(split(pattern(object, where), behavior(object, where),
                                  boolean(object, "invert", false, where)));
    } else if (type == "BertPreTokenizer") {
        out.steps.push_back(bert_pre_tokenizer());
    } else if (type == "Whitespace") {
        out.steps.push_back(whitespace());
    } else if (type == "WhitespaceSplit") {
        out.steps.push_back(whitespace_split());
    } else if (type == "Punctuation") {
        out.steps.push_back(punctuation(behavior(object, where)));
    } else if (type == "Digits") {
        out.steps.push_back(digits(boolean(object, "individual_digits", false, where)));
    } else if (type == "Metaspace") {
        const std::string replacement = string(object, "replacement", "\xE2\x96\x81", where);
        // Older files say add_prefix_space (true: always); newer ones prepend_scheme.
        const bool add_prefix_space = boolean(object, "add_prefix_space", true, where);
        const std::string scheme =
            string(object, "prepend_scheme", add_prefix_space ? "always" : "never", where);
        if (scheme != "always" && scheme != "first" && scheme != "never")
            fail(where + ".prepend_scheme",
                 "\"" + scheme + "\" is not one of always, first, never");
        out.steps.push_back(metaspace(replacement,
                                      scheme == "always"  ? PrependScheme::always
                                      : scheme == "first" ? PrependScheme::first
                                                          : PrependScheme::never,
                                      boolean(object, "split", true, where)));
    } else {
        fail(where + ".type", "pre-tokenizer \"" + type +
                                  "\" is not supported (ByteLevel, Split, BertPreTokenizer, "
                                  "Whitespace, WhitespaceSplit, Punctuation, Digits, Metaspace, "
                                  "Sequence)");
    }
}

bool is_byte_level(const Json& object) {
    if (!object.is_object()) return false;
    const Json* type = member(object, "type");
    if (!type || !type->is_string()) return false;
    if (*type == "ByteLevel") return true;
    if (const Json* list = member(object, "pretokenizers"); list && list->is_array())
        for (const Json& step : *list)
            if (is_byte_level(step)) return true;
    return false;
}

}  // namespace attn::text
