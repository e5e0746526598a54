// Word vectors in the text format of word2vec (-binary 0) and GloVe: one word per line,
// then its values, separated by spaces or tabs:
//
//   [count dim]                 word2vec's optional header line (two integers)
//   the 0.418 0.24968 -0.41242
//   of  0.70853 0.57088 -0.4716
//
// and word lists (one word per line) that name the rows of an .npy table. The table read is
// runtime::WordVectors.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "runtime/word_vectors.hpp"

namespace attn::io {

/// Reads the text format above. Lines end with \n (a \r before it is dropped); blank lines
/// are skipped. A first line of exactly two non-negative integers is word2vec's header:
/// its dim must match the lines and its count the number of vectors. Values are parsed
/// whole (no trailing junk) and must be finite. A line whose number of values differs
/// from the first vector's, a header that disagrees or a file without any vector:
/// std::invalid_argument "<name>:<line>: <problem>".
runtime::WordVectors read_word_vectors(std::istream& in, const std::string& name_for_messages);
/// read_word_vectors on a file; "-" reads standard input. Unopenable: std::system_error.
runtime::WordVectors read_word_vectors(const std::string& path);

/// One word per line (a trailing \r dropped, surrounding spaces kept out). An empty line
/// inside the list, or a word listed twice: std::invalid_argument "<name>:<line>: ...".
std::vector<std::string> read_word_list(std::istream& in, const std::string& name_for_messages);
std::vector<std::string> read_word_list(const std::string& path);

}  // namespace attn::io
