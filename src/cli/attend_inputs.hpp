// attn attend's inputs: sentences -> tokens -> embedded rows (drawn nn.Embedding, an .npy
// table, or word vectors), or the rows of an .npy file.
#pragma once

#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/reference.hpp"
#include "attn/torch_random.hpp"
#include "cli/attend_options.hpp"
#include "io/embeddings_text.hpp"
#include "io/npy.hpp"

namespace attn::cli {

// One sequence of the run: a sentence, or the input matrix (b = 0: 2-d) / batch.
struct Sequence {
    std::vector<std::string> tokens;  // empty for --input: labels are positions
    std::vector<std::size_t> ids;
    std::vector<std::string> vocab;
    std::size_t batch = 0;                  // 0: no batch axis; else b
    std::vector<xt::xtensor<double, 2>> x;  // per batch element (n, d_in), exact input values
    std::size_t n() const { return x.front().shape(0); }
    std::size_t d_in() const { return x.front().shape(1); }
};

// The embedding source of sentence mode.
struct EmbeddingSource {
    enum Kind { torch_table, npy_by_id, words } kind = torch_table;
    std::string description;       // for titles
    xt::xtensor<double, 2> table;  // torch_table, npy_by_id: (V, D)
    io::WordVectors vectors;       // words (an .npy table with --vocab is turned into this)
    std::size_t dim() const { return kind == words ? vectors.dim : table.shape(1); }
};

/// "(2, 3)", "(4,)".
std::string shape_string(const std::vector<std::size_t>& shape);

/// io::read_npy with `option` named in every message (cli/errors.hpp naming_option).
io::NpyArray read_npy_option(const std::string& option, const std::string& path);

/// The table or vectors the sentences are embedded with (draws nn.Embedding from the seed).
EmbeddingSource load_embeddings(const AttendOptions& opt, TorchGenerator& gen);

/// One sentence as a Sequence; `where` names it in messages ("the sentence", "standard input
/// line 3").
Sequence embed_sentence(const std::string& text, const std::string& where, const AttendOptions& opt,
                        const EmbeddingSource& src, TorchGenerator& gen);

/// --input: rows (n, d) or a batch (b, n, d).
Sequence read_input(const AttendOptions& opt);

/// The masks of every sequence, per batch element: --causal, --valid-len (one length for all
/// or one per sequence), --mask-value; UsageError naming the option.
std::vector<std::vector<MaskOptions>> sequence_masks(const AttendOptions& opt,
                                                     const std::vector<Sequence>& seqs);

/// One sentence per line of standard input (refused on a terminal).
std::vector<std::string> read_sentence_lines();

}  // namespace attn::cli
