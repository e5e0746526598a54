#include "attn/tokenizer.hpp"

#include <algorithm>
#include <stdexcept>

namespace attn {
namespace {

// ASCII white space as Python's str.split() sees it.
bool is_split_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

bool is_ascii_punctuation(unsigned char c) {
    return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
           (c >= '{' && c <= '~');
}

}  // namespace

std::vector<std::string> tokenize(std::string_view sentence, const TokenizeOptions& options) {
    std::vector<std::string> tokens;
    std::string current;
    const auto finish_token = [&] {
        if (!current.empty()) tokens.push_back(std::move(current));
        current.clear();
    };
    for (const char ch : sentence) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == ',') continue;
        if (options.strip_punctuation && is_ascii_punctuation(c)) continue;
        if (is_split_space(c)) {
            finish_token();
            continue;
        }
        current.push_back(options.lowercase && c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32)
                                                                    : ch);
    }
    finish_token();
    if (tokens.empty())
        throw std::invalid_argument(
            "tokenize: the sentence has no tokens (empty, or only white "
            "space and removed punctuation)");
    return tokens;
}

Vocabulary::Vocabulary(const std::vector<std::string>& tokens) : tokens_(tokens) {
    if (tokens_.empty()) throw std::invalid_argument("Vocabulary: no tokens");
    std::sort(tokens_.begin(), tokens_.end());  // char_traits<char> compares as unsigned bytes
    tokens_.erase(std::unique(tokens_.begin(), tokens_.end()), tokens_.end());
}

bool Vocabulary::contains(std::string_view token) const {
    return std::binary_search(tokens_.begin(), tokens_.end(), token);
}

std::size_t Vocabulary::id(std::string_view token) const {
    const auto it = std::lower_bound(tokens_.begin(), tokens_.end(), token);
    if (it == tokens_.end() || *it != token)
        throw std::invalid_argument("Vocabulary: unknown token '" + std::string(token) + "'");
    return static_cast<std::size_t>(it - tokens_.begin());
}

std::vector<std::size_t> Vocabulary::ids(const std::vector<std::string>& tokens) const {
    std::vector<std::size_t> out;
    out.reserve(tokens.size());
    for (const auto& t : tokens) out.push_back(id(t));
    return out;
}

}  // namespace attn
