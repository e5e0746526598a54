#include "attn/text/normalizer.hpp"

#include <memory>
#include <utility>

namespace attn::text {

namespace {

// Text with each code point c replaced by keep(c, out) deciding what to append.
template <class F>
std::string map_code_points(const std::string& text, F&& emit) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const CodePoint c = decode_at(text, at);
        emit(c.value, std::string_view(text).substr(at, c.length), out);
        at += c.length;
    }
    return out;
}

std::string drop_nonspacing_marks(const std::string& text) {
    return map_code_points(text, [](char32_t c, std::string_view bytes, std::string& out) {
        if (!is_nonspacing_mark(c)) out.append(bytes);
    });
}

}  // namespace

std::string Normalizer::operator()(std::string text) const {
    for (const NormalizerStep& step : steps) text = step(std::move(text));
    return text;
}

NormalizerStep unicode_form(NormalForm form) {
    return [form](std::string text) { return normalize(text, form); };
}

NormalizerStep lowercase() {
    return [](std::string text) { return to_lower(text); };
}

NormalizerStep strip_accents() {
    return [](std::string text) { return drop_nonspacing_marks(text); };
}

NormalizerStep prepend(std::string prefix) {
    return [prefix = std::move(prefix)](std::string text) {
        return text.empty() ? text : prefix + text;
    };
}

NormalizerStep replace(Regex pattern, std::string content) {
    auto shared = std::make_shared<Regex>(std::move(pattern));
    return [shared, content = std::move(content)](std::string text) {
        std::string out;
        std::size_t at = 0;
        for (const Span& m : shared->find_all(text)) {
            out.append(text, at, m.begin - at);
            out += content;
            at = m.end;
        }
        out.append(text, at);
        return out;
    };
}

NormalizerStep strip(bool left, bool right) {
    return [left, right](std::string text) {
        std::size_t begin = 0, end = text.size();
        while (left && begin < end) {
            const CodePoint c = decode_at(text, begin);
            if (!is_whitespace(c.value)) break;
            begin += c.length;
        }
        while (right && end > begin) {
            std::size_t start = end - 1;
            while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
                --start;
            if (!is_whitespace(decode_at(text, start).value)) break;
            end = start;
        }
        return text.substr(begin, end - begin);
    };
}

NormalizerStep bert_normalizer(BertNormalization options) {
    return [options](std::string text) {
        if (options.clean_text)
            text = map_code_points(text, [](char32_t c, std::string_view bytes, std::string& out) {
                if (c == 0 || c == 0xFFFD || is_control(c)) return;
                if (is_whitespace(c))
                    out += ' ';
                else
                    out.append(bytes);
            });
        if (options.handle_chinese_chars)
            text = map_code_points(text, [](char32_t c, std::string_view bytes, std::string& out) {
                if (is_cjk_ideograph(c)) {
                    out += ' ';
                    out.append(bytes);
                    out += ' ';
                } else {
                    out.append(bytes);
                }
            });
        if (options.strip_accents) text = drop_nonspacing_marks(normalize(text, NormalForm::nfd));
        if (options.lowercase) text = to_lower(text);
        return text;
    };
}

}  // namespace attn::text
