// Sentence -> tokens -> vocabulary ids, as the self-attention notebook does it:
//   dc = {s: i for i, s in enumerate(sorted(sentence.replace(',', '').split()))}
//   sentence_int = [dc[s] for s in sentence.replace(',', '').split()]
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

struct TokenizeOptions {
    bool lowercase = false;  // ASCII A-Z -> a-z; other bytes unchanged
    bool strip_punctuation =
        false;  // remove all ASCII punctuation !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~
};

/// Tokens in sentence order. Commas are always removed (the notebook's replace(',', '')),
/// then the options apply, then the text is split on runs of ASCII white space (as Python's
/// str.split() does for ASCII text: space, \t \n \v \f \r and \x1c-\x1f). Case is kept by
/// default. Bytes >= 0x80 (UTF-8) pass through untouched, so non-ASCII white space such as
/// U+00A0 does not split. Throws std::invalid_argument if no token remains.
///   "Life is short, eat dessert first" -> [Life, is, short, eat, dessert, first]
std::vector<std::string> tokenize(std::string_view sentence, const TokenizeOptions& options = {});

/// id -> token: the sorted unique tokens in byte order (= code point order for UTF-8, as
/// Python's sorted() on str), so upper case sorts before lower case.
///   [Life, is, short, eat, dessert, first] -> {Life: 0, dessert: 1, eat: 2, first: 3, is: 4,
///                                              short: 5}
class Vocabulary {
  public:
    /// Throws std::invalid_argument if tokens is empty.
    explicit Vocabulary(const std::vector<std::string>& tokens);

    std::size_t size() const { return tokens_.size(); }
    const std::vector<std::string>& tokens() const { return tokens_; }
    const std::string& token(std::size_t id) const { return tokens_.at(id); }
    bool contains(std::string_view token) const;
    /// Throws std::invalid_argument for a token not in the vocabulary.
    std::size_t id(std::string_view token) const;
    /// [id(t) for t in tokens]
    std::vector<std::size_t> ids(const std::vector<std::string>& tokens) const;

  private:
    std::vector<std::string> tokens_;  // sorted, unique
};

}  // namespace attn
