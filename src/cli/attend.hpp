// attn attend: what its files share. attend.cpp declares the options (--permute parsed there,
// checked by attn::check_permutation) and wires a run (options -> inputs -> attn::forward per
// sequence -> the --show table -> the writer); attend_inputs.cpp reads the sequences and the
// --wq ... files, draws W and reserves the run's memory, the option named in the library's
// messages (EmbeddingError, WeightShapeError); attend_arrays.cpp is the --show table over the
// layer's results. The scheme's options are cli/position_options' AttentionPositions.
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

/// The masks of every sequence, per batch element: --causal, --valid-len (one length for all
/// or one per sequence), --mask-value; UsageError naming the option. `text` is how they read
/// in titles (", causal, valid length 3, masked scores = -1000000").
struct Masks {
    std::vector<std::vector<MaskOptions>> of;  // [sequence][batch element]
    std::string text;
};
Masks sequence_masks(const AttendOptions& opt, const std::vector<Sequence>& seqs);

/// --wq --wk --wv --wo, those given: (d_in, d) for one head, (d_in, H d) or (H, d_in, d)
/// (attn/attention/weights.hpp), and the layer they and the options imply for rows d_in wide
/// (its n unused; d_k = d_q; from an option, else the files, else --input's d_in); every file
/// is checked against it (UsageError naming the option).
struct Projections {
    std::optional<io::NpyArray> q, k, v, o;
    LayerShape layer;
};
Projections read_projections(const AttendOptions& opt, std::size_t d_in);

/// The files' blocks, and the others drawn by attn::draw_attention_weights after
/// torch.manual_seed(seed) in its order (with --bias, each weight followed by its bias); their
/// memory is reserved by plan_attention.
template <class T>
AttentionWeights<T> make_parameters(const AttendOptions& opt, const Projections& p,
                                    TorchGenerator& gen);

enum class Show {
    vocabulary,
    tokens,
    ids,
    embeddings,
    queries,
    keys,
    values,
    positions,
    scores,
    scaled_scores,
    masked_scores,
    weights,
    context,
    equivariance,
    w_query,
    w_key,
    w_value,
    w_out,
    head_stats,  // the summaries (model::AttentionSummaries)
    offsets,
    mean_weights,
    rollout
};

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

template <class T>
const ShowTable<Show, SentenceArrays<T>>& attend_show_table();

/// What arrays of the --show table need of the run (ShowEntry::needs), one bit each.
namespace need {
constexpr unsigned tokens = 1;        // a sentence, not --input rows
constexpr unsigned out_proj = 2;      // an output projection: --out-proj or --wo
constexpr unsigned scheme = 4;        // a position scheme
constexpr unsigned permute = 8;       // --permute
constexpr unsigned projections = 16;  // W_q, W_k, W_v: not --no-projection
constexpr unsigned binary = 32;       // npy or npz, where tokens are text without their ids
}  // namespace need

/// What arrays of the --show table ask the run to make or keep (ShowEntry::asks), one bit each.
namespace ask {
constexpr unsigned rows = 1;       // rows n wide, made a block at a time as they are written
constexpr unsigned summaries = 2;  // the heads' summaries (model::AttentionSummaries)
constexpr unsigned masked = 4;     // the masked scores (LayerOptions::keep_masked)
constexpr unsigned unrotated = 8;  // q and k before RoPE (LayerOptions::keep_unrotated)
}  // namespace ask

/// A --show list ("all", "scores,weights", ...) as items in order, without repeats, for a run
/// that has the needs `have` (parse_show_list over attend_show_table).
std::vector<Show> parse_show(const std::string& list, unsigned have);

/// The memory of making the weights (the files' values, each weight in float32 and in T), then
/// of the whole run (attn::sequence_run_plan: the weights, every sequence's layer with options
/// `o`, its unpermuted twin with --permute, the row blocks streamed: n wide when the arrays shown
/// ask for rows or summaries), with X as read, as shown and unpermuted, and the summaries when
/// asked, reserved before anything is allocated: UsageError naming --max-memory above the limit.
/// Values are value_bytes wide (sizeof(T)). Returns how arrays are streamed.
io::DriveOptions plan_attention(const AttendOptions& opt, const std::vector<Sequence>& seqs,
                                const Projections& p, unsigned asks, const LayerOptions& o,
                                std::size_t value_bytes);

}  // namespace attn::cli
