// Word vectors in the text format of word2vec (-binary 0) and GloVe: one word per line,
// then its values, separated by spaces or tabs:
//
//   [count dim]                 word2vec's optional header line (two integers)
//   the 0.418 0.24968 -0.41242
//   of  0.70853 0.57088 -0.4716
//
// and word lists (one word per line) that name the rows of an .npy table.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attn::io {

/// A table of word vectors: row r (dim values, row-major in `values`) belongs to words[r].
struct WordVectors {
    std::vector<std::string> words;
    std::size_t dim = 0;
    std::vector<double> values;  // words.size() * dim

    /// The row of `word`, or nullopt. A word listed twice resolves to its first row.
    std::optional<std::size_t> find(std::string_view word) const;

    /// Builds the index find() uses; the readers call it.
    void index();

  private:
    std::unordered_map<std::string, std::size_t> index_;
};

/// Reads the text format above. Lines end with \n (a \r before it is dropped); blank lines
/// are skipped. A first line of exactly two non-negative integers is word2vec's header:
/// its dim must match the lines and its count the number of vectors. Values are parsed
/// whole (no trailing junk) and must be finite. A line whose number of values differs
/// from the first vector's, a header that disagrees or a file without any vector:
/// std::invalid_argument "<name>:<line>: <problem>".
WordVectors read_word_vectors(std::istream& in, const std::string& name_for_messages);
/// read_word_vectors on a file; "-" reads standard input. Unopenable: std::system_error.
WordVectors read_word_vectors(const std::string& path);

/// One word per line (a trailing \r dropped, surrounding spaces kept out). An empty line
/// inside the list, or a word listed twice: std::invalid_argument "<name>:<line>: ...".
std::vector<std::string> read_word_list(std::istream& in, const std::string& name_for_messages);
std::vector<std::string> read_word_list(const std::string& path);

}  // namespace attn::io
