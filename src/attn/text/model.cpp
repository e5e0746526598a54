#include "attn/text/model.hpp"

namespace attn::text {

void Vocabulary::add(std::string token, TokenId id) {
    tokens_.emplace(id, token);          // an id given twice keeps its first string
    ids_.emplace(std::move(token), id);  // a string given twice keeps its first id
}

std::optional<TokenId> Vocabulary::id(std::string_view token) const {
    const auto it = ids_.find(token);
    if (it == ids_.end()) return std::nullopt;
    return it->second;
}

const std::string* Vocabulary::token(TokenId id) const {
    const auto it = tokens_.find(id);
    return it == tokens_.end() ? nullptr : &it->second;
}

}  // namespace attn::text
