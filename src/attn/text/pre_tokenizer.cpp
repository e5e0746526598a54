#include "attn/text/pre_tokenizer.hpp"

#include <memory>
#include <utility>

#include "attn/text/byte_level.hpp"
#include "attn/text/unicode.hpp"

namespace attn::text {

namespace {

struct Marked {
    Span span;
    bool match;
};

// The text cut at the matches: every byte in exactly one span, in order.
std::vector<Marked> mark(std::size_t size, const std::vector<Span>& matches, bool invert) {
    std::vector<Marked> marked;
    std::size_t at = 0;
    for (const Span& m : matches) {
        if (m.begin > at) marked.push_back({{at, m.begin}, invert});
        marked.push_back({m, !invert});
        at = m.end;
    }
    if (at < size) marked.push_back({{at, size}, invert});
    return marked;
}

// Hugging Face's NormalizedString::split: the spans that become pieces.
std::vector<Span> apply(std::vector<Marked> marked, SplitBehavior behavior) {
    std::vector<Span> out;
    switch (behavior) {
        case SplitBehavior::removed:
            for (const Marked& m : marked)
                if (!m.match) out.push_back(m.span);
            break;
        case SplitBehavior::isolated:
            for (const Marked& m : marked) out.push_back(m.span);
            break;
        case SplitBehavior::contiguous: {
            bool previous_match = false;
            for (const Marked& m : marked) {
                if (m.match && previous_match && !out.empty())
                    out.back().end = m.span.end;
                else
                    out.push_back(m.span);
                previous_match = m.match;
            }
            break;
        }
        case SplitBehavior::merged_with_previous: {
            bool previous_match = false;
            for (const Marked& m : marked) {
                if (m.match && !previous_match && !out.empty())
                    out.back().end = m.span.end;
                else
                    out.push_back(m.span);
                previous_match = m.match;
            }
            break;
        }
        case SplitBehavior::merged_with_next: {
            bool previous_match = false;
            std::vector<Span> reversed;
            for (auto it = marked.rbegin(); it != marked.rend(); ++it) {
                if (it->match && !previous_match && !reversed.empty())
                    reversed.back().begin = it->span.begin;
                else
                    reversed.push_back(it->span);
                previous_match = it->match;
            }
            out.assign(reversed.rbegin(), reversed.rend());
            break;
        }
    }
    return out;
}

Pieces cut(const Piece& piece, const std::vector<Span>& spans) {
    Pieces out;
    for (const Span& s : spans)
        if (s.end > s.begin)
            out.push_back(
                {piece.text.substr(s.begin, s.end - s.begin), piece.at_start && s.begin == 0});
    return out;
}

// Each code point for which is_match holds is one match.
template <class F>
std::vector<Span> char_matches(const std::string& text, F&& is_match) {
    std::vector<Span> matches;
    for (std::size_t at = 0; at < text.size();) {
        const CodePoint c = decode_at(text, at);
        if (is_match(c.value)) matches.push_back({at, at + c.length});
        at += c.length;
    }
    return matches;
}

template <class F>
PreTokenizerStep split_chars(F is_match, SplitBehavior behavior) {
    return [is_match, behavior](const Piece& piece) {
        const auto matches = char_matches(piece.text, is_match);
        return cut(piece, apply(mark(piece.text.size(), matches, false), behavior));
    };
}

}  // namespace

Pieces PreTokenizer::operator()(Pieces pieces) const {
    for (const PreTokenizerStep& step : steps) {
        Pieces next;
        for (const Piece& p : pieces)
            for (Piece& q : step(p)) next.push_back(std::move(q));
        pieces = std::move(next);
    }
    return pieces;
}

PreTokenizerStep split(Regex pattern, SplitBehavior behavior, bool invert) {
    auto shared = std::make_shared<Regex>(std::move(pattern));
    return [shared, behavior, invert](const Piece& piece) {
        const auto matches = shared->find_all(piece.text);
        return cut(piece, apply(mark(piece.text.size(), matches, invert), behavior));
    };
}

PreTokenizerStep byte_level(bool add_prefix_space, bool use_regex) {
    auto pattern = use_regex ? std::make_shared<Regex>(kGpt2Pattern) : nullptr;
    return [pattern, add_prefix_space](const Piece& original) {
        Piece piece = original;
        if (add_prefix_space && piece.text.rfind(' ', 0) != 0) piece.text.insert(0, 1, ' ');
        Pieces pieces =
            pattern
                ? cut(piece, apply(mark(piece.text.size(), pattern->find_all(piece.text), false),
                                   SplitBehavior::isolated))
                : Pieces{piece};
        for (Piece& p : pieces) p.text = byte_level_encode(p.text);
        return pieces;
    };
}

PreTokenizerStep bert_pre_tokenizer() {
    const PreTokenizerStep spaces = whitespace_split();
    const PreTokenizerStep marks = punctuation(SplitBehavior::isolated);
    return [spaces, marks](const Piece& piece) {
        Pieces out;
        for (const Piece& word : spaces(piece))
            for (Piece& p : marks(word)) out.push_back(std::move(p));
        return out;
    };
}

PreTokenizerStep whitespace() {
    auto words = std::make_shared<Regex>(R"(\w+|[^\w\s]+)");
    return [words](const Piece& piece) {
        return cut(piece, apply(mark(piece.text.size(), words->find_all(piece.text), true),
                                SplitBehavior::removed));
    };
}

PreTokenizerStep whitespace_split() {
    return split_chars([](char32_t c) { return is_whitespace(c); }, SplitBehavior::removed);
}

PreTokenizerStep punctuation(SplitBehavior behavior) {
    return split_chars([](char32_t c) { return is_punctuation(c); }, behavior);
}

PreTokenizerStep digits(bool individual) {
    return split_chars([](char32_t c) { return is_numeric(c); },
                       individual ? SplitBehavior::isolated : SplitBehavior::contiguous);
}

PreTokenizerStep metaspace(std::string replacement, PrependScheme scheme, bool split_words) {
    if (replacement.empty()) throw TokenizerError("Metaspace: the replacement is empty");
    return [replacement, scheme, split_words](const Piece& original) {
        Piece piece{{}, original.at_start};
        for (const char ch : original.text) {
            if (ch == ' ')
                piece.text += replacement;
            else
                piece.text += ch;
        }
        const bool starts = piece.text.rfind(replacement, 0) == 0;
        if (!starts &&
            (scheme == PrependScheme::always || (scheme == PrependScheme::first && piece.at_start)))
            piece.text.insert(0, replacement);
        if (!split_words) return Pieces{piece};
        std::vector<Span> matches;
        for (std::size_t at = piece.text.find(replacement); at != std::string::npos;
             at = piece.text.find(replacement, at + replacement.size()))
            matches.push_back({at, at + replacement.size()});
        return cut(piece,
                   apply(mark(piece.text.size(), matches, false), SplitBehavior::merged_with_next));
    };
}

}  // namespace attn::text
