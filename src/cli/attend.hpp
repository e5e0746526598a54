// attn attend: what its files share. attend.cpp declares the options (--permute parsed there,
// checked by attn::check_permutation) and wires a run (options -> inputs -> attn::forward per
// sequence -> the --show table -> the writer); attend_inputs.cpp reads the sequences and the
// --wq ... files, draws W and reserves the run's memory, the option named in the library's
// messages (EmbeddingError, WeightShapeError); attend_arrays.cpp is the --show table over the
// layer's results, its rows attend_show.cpp's. The scheme's options are cli/position_options'
// AttentionPositions.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"
#include "attn/attention/memory_plan.hpp"
#include "attn/attention/reference.hpp"
#include "attn/attention/sequence.hpp"
#include "attn/attention/weights.hpp"
#include "attn/embedding.hpp"
#include "attn/model/summaries.hpp"
#include "attn/positions/scheme.hpp"
#include "attn/torch_random.hpp"
#include "cli/attend_show.hpp"
#include "cli/common_options.hpp"
#include "cli/position_options.hpp"
#include "cli/show_table.hpp"
#include "io/matrix_stream.hpp"
#include "io/npy.hpp"
#include "io/progress.hpp"

namespace attn::cli {

enum class Rng { torch };
enum class AttentionPath { automatic, direct, tiled };  // --attention

/// --permute, parsed: reverse, or new position i holds old row indices[i] (numpy's X[p]).
struct Permute {
    bool reverse = false;
    std::vector<std::size_t> indices;
};

/// --valid-len, parsed: one length for all sequences or one per sequence, and its text.
struct ValidLengths {
    std::vector<std::size_t> lengths;
    std::string text;
};

struct AttendOptions {
    std::string sentence;
    bool lowercase = false;
    bool strip_punctuation = false;
    std::int64_t vocab_size = 50000;
    std::int64_t embed_dim = 3;
    std::string embeddings;
    std::string vocab;
    UnknownWord unknown = UnknownWord::error;
    Rng rng = Rng::torch;
    std::uint64_t seed = 123;
    TorchKernel rng_kernel = TorchKernel::avx2;
    std::int64_t dq = 2;
    std::int64_t dk = 2;
    std::int64_t dv = 4;
    ProjectionInit init = ProjectionInit::rand;
    std::string wq, wk, wv, wo;
    std::int64_t heads = 1;
    bool out_proj = false;
    bool no_projection = false;                          // Q = K = V = X
    AttentionPath attention = AttentionPath::automatic;  // --attention
    bool causal = false;
    std::optional<ValidLengths> valid_len;
    double mask_value = -1e6;
    std::string show;  // comma list of the --show table's names; "" = by the output
    std::int64_t query = 0;
    std::string input;
    AttentionPositions pos;  // --scheme and its options
    std::optional<Permute> permute;
    bool bias = false;
    OutputOptions out;
    const CLI::App* app = nullptr;  // the parsed subcommand
    /// Whether the option ("--dq", "sentence") was given, where its presence matters.
    bool given(const std::string& name) const { return app->count(name) > 0; }
};

/// The sequences attended over and what their rows are (the --show table's embeddings title):
/// --input's rows (n, d) or batch (b, n, d), else the SENTENCE, or with `indexed` one sentence
/// per line of standard input, embedded by --embeddings (text vectors, an .npy table by id or
/// by --vocab) or by nn.Embedding drawn from the seed; UsageError naming the option.
struct Sequences {
    std::vector<Sequence> seqs;
    std::vector<std::string> names;  // in messages: "the input", "the sentence", "sentence 2"
    std::string title;
};
Sequences read_sequences(const AttendOptions& opt, bool indexed, TorchGenerator& gen);

/// What a run attends with, set up from the options in this order (attend_inputs.cpp): the
/// --wq ... files and the widths they and the options imply (d_k = d_q: from an option, else
/// the files, else --input's d_in), the path (--attention), the memory of the whole run and of
/// making the weights reserved (--max-memory; `asks`: what the arrays shown ask of the run),
/// the inputs within the dtype's range, the weights read or drawn after torch.manual_seed(seed)
/// in attn::draw_attention_weights' order, the masks, --query and the scheme. UsageError naming
/// the option.
template <class T>
struct AttendSetup {
    LayerShape layer;                             // its n unused
    AttentionWeights<T> par;                      // empty with --no-projection
    LayerOptions base;                            // every sequence's options, but its progress
    positions::SchemeConfig scheme;               // --scheme and its options
    std::vector<std::vector<MaskOptions>> masks;  // [sequence][batch element]
    std::string mask_text;  // how the masks read in titles: ", causal, valid length 3", ...
    std::optional<std::size_t> query;  // --query
    io::DriveOptions drive;            // how the arrays are streamed
};
template <class T>
AttendSetup<T> setup_attention(const AttendOptions& opt, const Sequences& in, unsigned asks,
                               TorchGenerator& gen);

/// Everything computed for one sequence (a sentence, or the --input rows), per batch element.
template <class T>
struct SequenceRun : SequenceResult<T> {  // scale: nullopt, omega / sqrt(d_k); 1 with --no-scale
    // per batch element, made by the first summary shown and shared by the others
    mutable std::shared_ptr<std::vector<model::AttentionSummaries>> summaries;
};

/// What the arrays of one sentence (or of the --input rows) are made from.
template <class T>
struct SentenceArrays {
    const Sequence& s;
    const SequenceRun<T>& run;
    const AttentionWeights<T>& par;
    const LayerShape& layer;
    std::optional<std::size_t> query;  // --query: only this row of Q, scores, weights, context
    std::string embed_title;           // what the embeddings are
    std::string mask_text;             // ", causal, valid length 3", ...
    std::shared_ptr<io::Progress> progress;  // counts the n x n rows streamed
    bool binary = false;                     // npy or npz: tokens as text, ids 1-D
};

/// The random model's --show table: the rows of attend_arrays() it shows, with its producers.
template <class T>
const ShowTable<Show, SentenceArrays<T>>& attend_show_table();

/// A --show list ("all", "scores,weights", ...) as items in order, without repeats, for a run
/// that has the needs `have` (parse_show_list over attend_show_table).
std::vector<Show> parse_show(const std::string& list, unsigned have);

}  // namespace attn::cli
