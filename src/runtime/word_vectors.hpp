// A table of word vectors (word2vec, GloVe): what io reads (io/embeddings_text) and attn embeds
// a sentence's words with (attn/embedding). Row r, `dim` values row-major in `values`, is the
// vector of words[r]:
//
//   values  (words.size(), dim)
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attn::runtime {

struct WordVectors {
    std::vector<std::string> words;
    std::size_t dim = 0;
    std::vector<double> values;  // words.size() * dim

    /// The row of `word`, or nullopt. A word listed twice resolves to its first row.
    std::optional<std::size_t> find(std::string_view word) const;

    /// Builds the index find() uses; call it once words are filled (the readers do).
    void index();

  private:
    std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace attn::runtime
