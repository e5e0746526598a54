#include "io/embedding_table.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "io/embeddings_text.hpp"
#include "runtime/finite.hpp"
#include "runtime/shape_tuple.hpp"

namespace attn::io {

NpyArray read_embedding_table(const std::string& path) {
    NpyArray a = read_npy(path);
    if (a.shape.size() != 2 || a.shape[0] == 0 || a.shape[1] == 0)
        throw std::invalid_argument(
            fmt::format("{}: shape {}; an embedding table is (vocabulary, dim)", path,
                        runtime::shape_tuple(a.shape)));
    runtime::check_finite(a.values, a.shape, path);
    return a;
}

runtime::WordVectors name_table_rows(NpyArray table, const std::string& table_path,
                                     const std::string& words_path) {
    runtime::WordVectors v;
    v.words = read_word_list(words_path);
    if (v.words.size() != table.shape[0])
        throw std::invalid_argument(fmt::format("{} lists {} words, but {} has {} rows", words_path,
                                                v.words.size(), table_path, table.shape[0]));
    v.dim = table.shape[1];
    v.values = std::move(table.values);
    v.index();
    return v;
}

}  // namespace attn::io
