#include "attn/text/model.hpp"

#include <algorithm>
#include <functional>

namespace attn::text {

namespace {

std::size_t hash_of(std::string_view s) {
    return std::hash<std::string_view>{}(s);
}

// Ids below this many per entry (plus a margin) live in the dense table.
constexpr std::size_t kDenseSlack = 4096;

}  // namespace

void Vocabulary::reserve(std::size_t n) {
    entries_.reserve(n);
    if (slots_.size() < 2 * n) {
        std::size_t size = 16;
        while (size < 2 * n) size *= 2;
        slots_.assign(size, 0);
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            std::size_t s = hash_of(text_of(entries_[i])) & (size - 1);
            while (slots_[s] != 0) s = (s + 1) & (size - 1);
            slots_[s] = static_cast<std::uint32_t>(i + 1);
        }
    }
}

void Vocabulary::grow() {
    reserve(entries_.empty() ? 8 : entries_.size() * 2);
}

void Vocabulary::add(std::string_view token, TokenId id) {
    if (2 * (entries_.size() + 1) > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    std::size_t s = hash_of(token) & mask;
    for (; slots_[s] != 0; s = (s + 1) & mask)
        if (text_of(entries_[slots_[s] - 1]) == token) return;  // the string keeps its first id
    if (token_index(id)) return;                                // the id keeps its first string
    entries_.push_back({text_.size(), token.size(), id});
    text_.append(token);
    const auto index = static_cast<std::uint32_t>(entries_.size());
    slots_[s] = index;
    if (id >= 0 && static_cast<std::size_t>(id) < 2 * entries_.size() + kDenseSlack) {
        if (dense_.size() <= static_cast<std::size_t>(id))
            dense_.resize(
                std::max<std::size_t>(static_cast<std::size_t>(id) + 1, 2 * dense_.size()), 0);
        dense_[static_cast<std::size_t>(id)] = index;
    } else {
        sparse_.emplace(id, index);
    }
}

std::optional<std::uint32_t> Vocabulary::token_index(TokenId id) const {
    if (id >= 0 && static_cast<std::size_t>(id) < dense_.size()) {
        const std::uint32_t i = dense_[static_cast<std::size_t>(id)];
        if (i != 0) return i - 1;
    }
    const auto it = sparse_.find(id);
    if (it == sparse_.end()) return std::nullopt;
    return it->second - 1;
}

std::optional<TokenId> Vocabulary::id(std::string_view token) const {
    if (slots_.empty()) return std::nullopt;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = hash_of(token) & mask; slots_[s] != 0; s = (s + 1) & mask) {
        const Entry& e = entries_[slots_[s] - 1];
        if (text_of(e) == token) return e.id;
    }
    return std::nullopt;
}

std::optional<std::string_view> Vocabulary::token(TokenId id) const {
    const auto i = token_index(id);
    if (!i) return std::nullopt;
    return text_of(entries_[*i]);
}

}  // namespace attn::text
