#include "attn/text/model.hpp"

#include <algorithm>
#include <functional>
#include <limits>

#include "attn/text/unicode.hpp"

namespace attn::text {

namespace {

std::uint64_t hash_of(std::string_view s) {
    return std::hash<std::string_view>{}(s);
}

// Ids below this many per entry (plus a margin) live in the dense table.
constexpr std::size_t kDenseSlack = 4096;

}  // namespace

void Vocabulary::reserve(std::size_t n) {
    entries_.reserve(n);
    if (slots_.size() >= 2 * n) return;
    std::size_t size = 16;
    while (size < 2 * n) size *= 2;
    slots_.assign(size, Slot{0, 0});
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const std::uint64_t h = entries_[i].hash;
        std::size_t s = h & (size - 1);
        while (slots_[s].entry != 0) s = (s + 1) & (size - 1);
        slots_[s] = {static_cast<std::uint32_t>(i + 1), static_cast<std::uint32_t>(h >> 32)};
    }
}

void Vocabulary::append(std::string_view token, TokenId id, std::uint64_t hash) {
    if (text_.size() + token.size() > std::numeric_limits<std::uint32_t>::max())
        throw TokenizerError("a vocabulary of more than 4 GiB of token strings");
    entries_.push_back({static_cast<std::uint32_t>(text_.size()),
                        static_cast<std::uint32_t>(token.size()), hash, id});
    text_.append(token);
}

bool Vocabulary::index_all() {
    std::size_t size = 16;
    while (size < 2 * entries_.size()) size *= 2;
    slots_.assign(size, Slot{0, 0});
    const std::size_t mask = size - 1;
    const std::size_t dense_below = 2 * entries_.size() + kDenseSlack;
    std::size_t dense_size = 0;
    for (const Entry& e : entries_)
        if (e.id >= 0 && static_cast<std::size_t>(e.id) < dense_below)
            dense_size = std::max(dense_size, static_cast<std::size_t>(e.id) + 1);
    dense_.assign(dense_size, 0);
    constexpr std::size_t kGroup = 64;
    for (std::size_t base = 0; base < entries_.size(); base += kGroup) {
        const std::size_t end = std::min(base + kGroup, entries_.size());
        for (std::size_t i = base; i < end; ++i)
            __builtin_prefetch(&slots_[entries_[i].hash & mask]);
        for (std::size_t i = base; i < end; ++i) {
            const Entry& e = entries_[i];
            const auto tag = static_cast<std::uint32_t>(e.hash >> 32);
            std::size_t s = e.hash & mask;
            for (; slots_[s].entry != 0; s = (s + 1) & mask)
                if (slots_[s].tag == tag && text_of(entries_[slots_[s].entry - 1]) == text_of(e))
                    return false;
            const auto index = static_cast<std::uint32_t>(i + 1);
            slots_[s] = {index, tag};
            if (e.id >= 0 && static_cast<std::size_t>(e.id) < dense_size) {
                if (dense_[static_cast<std::size_t>(e.id)] != 0) return false;
                dense_[static_cast<std::size_t>(e.id)] = index;
            } else if (!sparse_.emplace(e.id, index).second) {
                return false;
            }
        }
    }
    return true;
}

void BulkVocabulary::append(std::string_view token, TokenId id) {
    v_.append(token, id, hash_of(token));
}

std::optional<Vocabulary> BulkVocabulary::done() && {
    if (!v_.index_all()) return std::nullopt;
    return std::move(v_);
}

bool Vocabulary::add(std::string_view token, TokenId id) {
    if (2 * (entries_.size() + 1) > slots_.size())
        reserve(entries_.empty() ? 8 : entries_.size() * 2);
    const std::uint64_t h = hash_of(token);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    const std::size_t mask = slots_.size() - 1;
    std::size_t s = h & mask;
    for (; slots_[s].entry != 0; s = (s + 1) & mask)
        if (slots_[s].tag == tag && text_of(entries_[slots_[s].entry - 1]) == token)
            return false;               // the string keeps its first id
    if (token_index(id)) return false;  // the id keeps its first string
    append(token, id, h);
    const auto index = static_cast<std::uint32_t>(entries_.size());
    slots_[s] = {index, tag};
    if (id >= 0 && static_cast<std::size_t>(id) < 2 * entries_.size() + kDenseSlack) {
        if (dense_.size() <= static_cast<std::size_t>(id))
            dense_.resize(
                std::max<std::size_t>(static_cast<std::size_t>(id) + 1, 2 * dense_.size()), 0);
        dense_[static_cast<std::size_t>(id)] = index;
    } else {
        sparse_.emplace(id, index);
    }
    return true;
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
    const std::uint64_t h = hash_of(token);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = h & mask; slots_[s].entry != 0; s = (s + 1) & mask) {
        if (slots_[s].tag != tag) continue;
        const Entry& e = entries_[slots_[s].entry - 1];
        if (text_of(e) == token) return e.id;
    }
    return std::nullopt;
}

void Vocabulary::find(std::span<const std::string_view> tokens,
                      std::span<std::optional<TokenId>> ids) const {
    constexpr std::size_t kGroup = 64;  // long enough for each step's fetches to arrive
    std::uint64_t hash[kGroup];
    const Entry* candidate[kGroup];  // the first entry whose tag agrees, if any
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t base = 0; base < tokens.size(); base += kGroup) {
        const std::size_t n = std::min(kGroup, tokens.size() - base);
        if (slots_.empty()) {
            std::fill_n(ids.begin() + static_cast<std::ptrdiff_t>(base), n, std::nullopt);
            continue;
        }
        for (std::size_t i = 0; i < n; ++i) {
            hash[i] = hash_of(tokens[base + i]);
            __builtin_prefetch(&slots_[hash[i] & mask]);
        }
        for (std::size_t i = 0; i < n; ++i) {
            const auto tag = static_cast<std::uint32_t>(hash[i] >> 32);
            std::size_t s = hash[i] & mask;
            while (slots_[s].entry != 0 && slots_[s].tag != tag) s = (s + 1) & mask;
            candidate[i] = slots_[s].entry != 0 ? &entries_[slots_[s].entry - 1] : nullptr;
            if (candidate[i]) __builtin_prefetch(candidate[i]);
        }
        for (std::size_t i = 0; i < n; ++i)
            if (candidate[i]) __builtin_prefetch(text_.data() + candidate[i]->offset);
        for (std::size_t i = 0; i < n; ++i) {
            const std::string_view token = tokens[base + i];
            if (!candidate[i])
                ids[base + i] = std::nullopt;
            else if (text_of(*candidate[i]) == token)
                ids[base + i] = candidate[i]->id;
            else
                ids[base + i] = id(token);  // two strings with the same tag: probe on
        }
    }
}

std::optional<std::string_view> Vocabulary::token(TokenId id) const {
    const auto i = token_index(id);
    if (!i) return std::nullopt;
    return text_of(entries_[*i]);
}

}  // namespace attn::text
