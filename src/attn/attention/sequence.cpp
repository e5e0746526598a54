#include "attn/attention/sequence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "attn/attention/permutation.hpp"
#include "attn/tokenizer.hpp"

namespace attn {

Sequence token_sequence(std::vector<std::string> tokens) {
    const Vocabulary vocab(tokens);  // throws for no tokens
    Sequence s;
    s.vocab = vocab.tokens();
    s.ids = vocab.ids(tokens);
    s.tokens = std::move(tokens);
    return s;
}

Sequence permuted(const Sequence& s, std::span<const std::size_t> p) {
    const std::size_t n = s.x.empty() ? s.tokens.size() : s.n();
    const auto refuse = [n] {
        throw std::invalid_argument(
            fmt::format("sequence: p is not a permutation of the {} rows", n));
    };
    if (p.size() != n) refuse();
    std::vector<bool> seen(n, false);
    for (std::size_t v : p) {
        if (v >= n || seen[v]) refuse();
        seen[v] = true;
    }
    Sequence out = s;
    for (auto& x : out.x) x = permute_rows(x, p);
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (!s.tokens.empty()) out.tokens[i] = s.tokens.at(p[i]);
        if (!s.ids.empty()) out.ids[i] = s.ids.at(p[i]);
    }
    return out;
}

std::vector<std::vector<MaskOptions>> sequence_masks(const std::vector<Sequence>& seqs,
                                                     const MaskOptions& base,
                                                     std::span<const std::size_t> valid) {
    std::size_t elements = 0;
    for (const auto& s : seqs) elements += s.x.size();
    if (valid.size() > 1 && valid.size() != elements)
        throw std::invalid_argument(
            fmt::format("sequence masks: {} valid lengths for {} sequences; give one or {}",
                        valid.size(), elements, elements));
    std::vector<std::vector<MaskOptions>> masks;
    std::size_t index = 0;
    for (const auto& s : seqs) {
        auto& per_batch = masks.emplace_back();
        for (std::size_t b = 0; b < s.x.size(); ++b, ++index) {
            MaskOptions& mask = per_batch.emplace_back(base);
            if (!valid.empty()) mask.valid_len = valid.size() == 1 ? valid[0] : valid[index];
        }
    }
    return masks;
}

}  // namespace attn
