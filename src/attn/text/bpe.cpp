#include "attn/text/bpe.hpp"

#include <fmt/format.h>

#include <queue>

#include "attn/text/unicode.hpp"

namespace attn::text {

// Merges are resolved in groups: the vocabulary finds a group's 3 strings per merge at once
// (Vocabulary::find), then its pairs go into the table with their slots fetched ahead.
Bpe::Bpe(Vocabulary vocabulary, const std::vector<MergePair>& merges, BpeOptions options)
    : vocabulary_(std::move(vocabulary)), options_(std::move(options)) {
    const std::string_view prefix = options_.continuing_subword_prefix;
    std::size_t slots = 16;
    while (2 * slots < 3 * merges.size()) slots *= 2;
    merges_.assign(slots, Merge{kEmpty, 0, 0});
    const auto slot_of = [&](std::uint64_t k) {
        return (k * 0x9E3779B97F4A7C15ULL) >> 32 & (slots - 1);
    };
    constexpr std::size_t kGroup = 64;
    constexpr auto kMax = static_cast<TokenId>(0xFFFFFFFF);
    std::string joined[kGroup];  // left + right without its prefix; reused, no allocation a merge
    std::string_view strings[3 * kGroup];    // left, right, joined of each merge
    std::optional<TokenId> ids[3 * kGroup];  // their ids
    std::uint64_t keys[kGroup];
    for (std::size_t base = 0; base < merges.size(); base += kGroup) {
        const std::size_t n = std::min(kGroup, merges.size() - base);
        for (std::size_t i = 0; i < n; ++i) {
            const auto [left, right] = merges[base + i];
            joined[i].assign(left).append(
                right.substr(right.starts_with(prefix) ? prefix.size() : 0));
            strings[3 * i] = left;
            strings[3 * i + 1] = right;
            strings[3 * i + 2] = joined[i];
        }
        vocabulary_.find(std::span(strings, 3 * n), std::span(ids, 3 * n));
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t rank = base + i;
            const auto &a = ids[3 * i], &b = ids[3 * i + 1], &result = ids[3 * i + 2];
            if (!a || !b || !result)
                throw TokenizerError(
                    fmt::format("merge {} (\"{} {}\"): \"{}\" is not in the vocabulary", rank,
                                strings[3 * i], strings[3 * i + 1],
                                strings[!a   ? 3 * i
                                        : !b ? 3 * i + 1
                                             : 3 * i + 2]));
            if (*a < 0 || *b < 0 || *result < 0 || *a >= kMax || *b >= kMax || *result >= kMax ||
                rank >= 0xFFFFFFFF)
                throw TokenizerError(fmt::format("merge {}: ids beyond 32 bits", rank));
            keys[i] = key(*a, *b);
            __builtin_prefetch(&merges_[slot_of(keys[i])]);
        }
        for (std::size_t i = 0; i < n; ++i) {
            std::size_t s = slot_of(keys[i]);
            while (merges_[s].key != kEmpty && merges_[s].key != keys[i]) s = (s + 1) & (slots - 1);
            if (merges_[s].key == kEmpty)  // a repeated pair keeps its first rank
                merges_[s] = {keys[i], static_cast<std::uint32_t>(base + i),
                              static_cast<std::uint32_t>(*ids[3 * i + 2])};
        }
    }
    if (options_.unk_token) {
        unk_ = vocabulary_.id(*options_.unk_token);
        if (!unk_)
            throw TokenizerError("unk_token \"" + *options_.unk_token +
                                 "\" is not in the vocabulary");
    }
}

const Bpe::Merge* Bpe::find(std::uint64_t k) const {
    const std::size_t mask = merges_.size() - 1;
    for (std::size_t s = (k * 0x9E3779B97F4A7C15ULL) >> 32 & mask; merges_[s].key != kEmpty;
         s = (s + 1) & mask)
        if (merges_[s].key == k) return &merges_[s];
    return nullptr;
}

std::vector<TokenId> Bpe::initial_symbols(const std::string& piece) const {
    std::vector<TokenId> symbols;
    bool pending_unk = false;  // an unknown run not yet written (fuse_unk)
    for (std::size_t at = 0; at < piece.size();) {
        const std::size_t length = decode_at(piece, at).length;
        const std::string_view character = std::string_view(piece).substr(at, length);
        std::string s;
        if (at > 0) s = options_.continuing_subword_prefix;
        s.append(character);
        at += length;
        if (at == piece.size()) s += options_.end_of_word_suffix;
        if (const auto id = vocabulary_.id(s)) {
            if (pending_unk) symbols.push_back(*unk_);
            pending_unk = false;
            symbols.push_back(*id);
            continue;
        }
        if (options_.byte_fallback) {
            std::vector<TokenId> bytes;
            for (const char b : character) {
                const auto id =
                    vocabulary_.id(fmt::format("<0x{:02X}>", static_cast<unsigned char>(b)));
                if (!id) break;
                bytes.push_back(*id);
            }
            if (bytes.size() == character.size()) {
                if (pending_unk) symbols.push_back(*unk_);
                pending_unk = false;
                symbols.insert(symbols.end(), bytes.begin(), bytes.end());
                continue;
            }
        }
        if (unk_) {
            if (pending_unk && !options_.fuse_unk) symbols.push_back(*unk_);
            pending_unk = true;
        }
    }
    if (pending_unk) symbols.push_back(*unk_);
    return symbols;
}

// Hugging Face's Word::merge_all: a queue of candidate merges by (rank, position); a
// candidate whose symbols changed since it was queued is skipped.
void Bpe::merge_all(std::vector<TokenId>& symbols) const {
    const std::size_t n = symbols.size();
    std::vector<std::ptrdiff_t> prev(n), next(n);
    std::vector<bool> alive(n, true);
    for (std::size_t i = 0; i < n; ++i) {
        prev[i] = static_cast<std::ptrdiff_t>(i) - 1;
        next[i] = i + 1 < n ? static_cast<std::ptrdiff_t>(i + 1) : -1;
    }
    struct Candidate {
        std::size_t rank, pos;
        TokenId result;
        bool operator>(const Candidate& o) const {
            return rank != o.rank ? rank > o.rank : pos > o.pos;
        }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    auto consider = [&](std::size_t left) {
        if (next[left] < 0) return;
        const Merge* m = find(key(symbols[left], symbols[static_cast<std::size_t>(next[left])]));
        if (m) queue.push({m->rank, left, m->result});
    };
    for (std::size_t i = 0; i + 1 < n; ++i) consider(i);
    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        if (!alive[top.pos] || next[top.pos] < 0) continue;
        const auto right = static_cast<std::size_t>(next[top.pos]);
        const Merge* m = find(key(symbols[top.pos], symbols[right]));
        if (!m || m->rank != top.rank || m->result != top.result) continue;
        symbols[top.pos] = top.result;
        alive[right] = false;
        next[top.pos] = next[right];
        if (next[right] >= 0)
            prev[static_cast<std::size_t>(next[right])] = static_cast<std::ptrdiff_t>(top.pos);
        if (prev[top.pos] >= 0) consider(static_cast<std::size_t>(prev[top.pos]));
        consider(top.pos);
    }
    std::vector<TokenId> merged;
    for (std::size_t i = 0; i < n; ++i)
        if (alive[i]) merged.push_back(symbols[i]);
    symbols = std::move(merged);
}

void Bpe::tokenize(const std::string& piece, std::vector<Token>& out) const {
    if (piece.empty()) return;
    if (options_.ignore_merges)
        if (const auto id = vocabulary_.id(piece)) {
            out.push_back({*id, piece});
            return;
        }
    std::vector<TokenId> symbols = initial_symbols(piece);
    merge_all(symbols);
    for (const TokenId id : symbols) out.push_back({id, std::string(*vocabulary_.token(id))});
}

}  // namespace attn::text
