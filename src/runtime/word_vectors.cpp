#include "runtime/word_vectors.hpp"

namespace attn::runtime {

std::optional<std::size_t> WordVectors::find(std::string_view word) const {
    const auto it = index_.find(std::string(word));
    if (it == index_.end()) return std::nullopt;
    return it->second;
}

void WordVectors::index() {
    index_.clear();
    for (std::size_t r = 0; r < words.size(); ++r) index_.emplace(words[r], r);  // first wins
}

}  // namespace attn::runtime
