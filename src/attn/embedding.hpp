// Tokens -> ids -> rows of X, and every random matrix attn draws, in the order the notebook
// and the book draw them (the tokens and their ids are tokenizer.hpp's). A sentence is
// embedded from a table by id or from word vectors (embed_sentence):
//
//   text -> tokens t_0 .. t_{n-1} -> vocab (sorted unique), ids -> X (n, D)
//   by id:   X_i = table[ids_i], table (V, D), V >= |vocab|
//   by word: X_i = vector(t_i); a word without one: an error, zeros or torch.randn rows
//
// Seed protocol: each group of draws starts from torch.manual_seed(seed), as the notebook
// re-seeds between its embedding and its weights:
//   1. the embedding table      nn.Embedding(V, D).weight, (V, D)         draw_embedding_table
//   2. the attention weights    head 0: W_q, W_k, W_v; head 1: ...; then W_o
//                               (with biases: W_q b_q W_k b_k W_v b_v per head, W_o b_o)
//                                                                         draw_attention_weights
// A matrix given by the user (read from a file) is skipped: it draws nothing, and the next
// matrix takes the numbers it would have used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/sequence.hpp"
#include "attn/tokenizer.hpp"
#include "attn/torch_random.hpp"
#include "runtime/word_vectors.hpp"

namespace attn {

/// How a projection W (d_in, d_out), applied as X W, is drawn (always in float32, as PyTorch):
///   rand:   torch.rand(d_in, d_out), U[0, 1): the notebook's nn.Parameter(torch.rand(...)).
///   linear: nn.Linear(d_in, d_out, bias=False).weight (d_out, d_in), kaiming-uniform in
///           (-1/sqrt(d_in), 1/sqrt(d_in)); returned transposed, since the layer computes
///           x W^T. The book's MultiHeadAttention initialises W_q, W_k, W_v, W_o this way.
enum class ProjectionInit { rand, linear };

/// Draws one projection; consumes d_in * d_out u32 from gen. Returns (d_in, d_out).
/// Throws std::invalid_argument if d_in or d_out is 0.
xt::xtensor<float, 2> draw_projection(TorchGenerator& gen, std::size_t d_in, std::size_t d_out,
                                      ProjectionInit init);

/// torch.manual_seed(seed); nn.Embedding(vocab, dim).weight: N(0, 1), (vocab, dim).
xt::xtensor<float, 2> draw_embedding_table(TorchGenerator& gen, std::uint64_t seed,
                                           std::size_t vocab, std::size_t dim);

/// The rows of X: row i = table[ids[i]], (ids, D). Throws std::invalid_argument for an id
/// beyond the table's rows.
template <class T>
xt::xtensor<T, 2> embed_rows(const xt::xtensor<T, 2>& table, const std::vector<std::size_t>& ids);

/// The table of a vocabulary's words from word vectors (word2vec, GloVe), (V, d): row id is
/// the vector of words[id], values[row(w) d ...] of `values` (rows, d) row-major. A word
/// without one (row(w) nullopt) is listed in `unknown`, in vocabulary order, and gets zeros,
/// or with `random` row k of torch.randn(unknowns, d) drawn after torch.manual_seed(seed), k
/// its place in `unknown`.
xt::xtensor<double, 2> word_table(
    const std::vector<std::string>& words,
    const std::function<std::optional<std::size_t>(const std::string&)>& row,
    std::span<const double> values, std::size_t d, bool random, TorchGenerator& gen,
    std::uint64_t seed, std::vector<std::string>& unknown);

/// What embed_sentence gives a word without a vector: nothing (EmbeddingError listing the
/// words), zeros, or rows of torch.randn (word_table's `random`).
enum class UnknownWord { error, zero, random };

/// What a sentence's tokens are embedded with: a table by id (nn.Embedding, an .npy table),
/// row id for vocab[id] of the sentence's own vocabulary, or word vectors looked up by word.
struct Embeddings {
    bool by_word = false;
    xt::xtensor<double, 2> table;  // !by_word: (V, D)
    runtime::WordVectors vectors;  // by_word: (words, D)
    std::size_t dim() const { return by_word ? vectors.dim : table.shape(1); }
};

/// Why a sentence has no rows: no token remains (empty), more distinct tokens than the
/// table's rows (too_few_rows), or words without a vector under UnknownWord::error. what()
/// is the whole sentence, beginning with embed_sentence's `where`:
///   the sentence: empty sentence: no token remains[ after removing punctuation]
///   the sentence: 7 distinct tokens have ids 0..6, but the embedding table has 3 rows
///   the sentence: no vector for 'dessert', 'eat'
struct EmbeddingError : std::invalid_argument {
    enum class Fault { empty, too_few_rows, unknown_words };
    EmbeddingError(Fault fault, const std::string& what);
    Fault fault;
    std::vector<std::string> unknown;  // unknown_words: in vocabulary order
};

/// One sentence as a Sequence: tokenize(text, options) -> token_sequence -> X (n, D), by id
/// (embed_rows) or by word (word_table with `unknown`, its random rows drawn after
/// torch.manual_seed(seed)). EmbeddingError as above, `where` naming the sentence ("the
/// sentence", "standard input line 3").
Sequence embed_sentence(const std::string& text, const TokenizeOptions& options,
                        const Embeddings& embeddings, UnknownWord unknown, TorchGenerator& gen,
                        std::uint64_t seed, const std::string& where = "the sentence");

/// The shapes of the attention weights and which of them to draw.
struct WeightDraws {
    std::size_t heads = 1;
    std::size_t d_in = 1;                // columns of X
    std::size_t d_query = 1, d_key = 1;  // W_q (d_in, d_query), W_k (d_in, d_key)
    std::size_t d_value = 1;             // W_v (d_in, d_value)
    std::optional<std::size_t> d_out;    // W_o (heads * d_value, d_out), none when unset
    bool query = true, key = true, value = true, out = true;  // false: given, not drawn
    /// Each drawn weight W (d_in, d) followed by its bias b (d,), as nn.Linear(bias=True):
    /// linear: nn.Linear's weight then bias, U(-1/sqrt(d_in), 1/sqrt(d_in)); rand: torch.rand(d).
    bool bias = false;
};

/// Drawn weights; a matrix that was not drawn (given, or no W_o) is std::nullopt, and so is
/// every bias without WeightDraws::bias.
struct DrawnWeights {
    std::vector<std::optional<xt::xtensor<float, 2>>> query, key, value;  // (heads,)
    std::optional<xt::xtensor<float, 2>> out;
    std::vector<std::optional<xt::xtensor<float, 1>>> b_query, b_key, b_value;  // (heads,)
    std::optional<xt::xtensor<float, 1>> b_out;
};

/// torch.manual_seed(seed), then head by head W_q, W_k, W_v, then W_o (draw_projection each,
/// each followed by its bias with draws.bias).
DrawnWeights draw_attention_weights(TorchGenerator& gen, std::uint64_t seed,
                                    const WeightDraws& draws, ProjectionInit init);

}  // namespace attn
