// An embedding table stored as an .npy array, one row per token:
//
//   table  (vocabulary, dim)   rows by id
//
// or its rows named by a word list (one word per line, io/embeddings_text's read_word_list),
// the list's word r naming row r: then it is word vectors (runtime::WordVectors) as a text
// file of them would be.
#pragma once

#include <string>

#include "io/npy.hpp"
#include "runtime/word_vectors.hpp"

namespace attn::io {

/// The .npy file at `path` as a table (read_npy's errors). Another rank, or a 0 in the shape:
/// std::invalid_argument "<path>: shape (...); an embedding table is (vocabulary, dim)"; a
/// value that is not finite: runtime::check_finite's.
NpyArray read_embedding_table(const std::string& path);

/// `table` (read from table_path) as word vectors named by the word list at words_path
/// (read_word_list's errors), indexed for find(). A list of another length than the rows:
/// std::invalid_argument "<words_path> lists N words, but <table_path> has M rows".
runtime::WordVectors name_table_rows(NpyArray table, const std::string& table_path,
                                     const std::string& words_path);

}  // namespace attn::io
