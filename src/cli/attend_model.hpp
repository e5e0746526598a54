// attn attend --model M: a Hugging Face checkpoint's forward, its attention per layer and head.
// The options live here and attend.cpp calls run_attend_model when --model is given; the
// arrays (--show) are rows of attend's one table (attend_show.cpp), made by the producers of
// attend_model_arrays.cpp, with the summaries' arrays that attend's random model shows too
// (head_stats_stream, summary_array_stream).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/model/run.hpp"
#include "cli/attend_show.hpp"
#include "cli/common_options.hpp"
#include "cli/model_files.hpp"
#include "io/matrix_stack.hpp"
#include "io/matrix_stream.hpp"
#include "io/safetensors.hpp"

namespace attn::cli {

struct AttendModelOptions {
    ModelOptions model;  // --model, --revision (model_files.hpp)
    std::string ids;     // "1,2,3": token ids instead of a text
    std::string layer;   // list grammar: "3", "2,5", "3:6", "-1"; "" = all
    std::string head;
    bool raw_tokens = false;     // labels as the vocabulary spells tokens
    std::string prompts;         // --prompts FILE: aggregates over its prompts (attend_prompts.cpp)
    std::int64_t top = 5;        // --top K: lens's tokens per layer and position
    std::int64_t position = -1;  // --position P: lens's position (-1 the last)
    CLI::Option* ids_opt = nullptr;
    CLI::Option* prompts_opt = nullptr;
    CLI::Option* position_opt = nullptr;
    CLI::Option* top_opt = nullptr;
    bool given() const { return model.given(); }
};

/// Adds --model, --revision, --ids, --prompts, --layer, --head, --raw-tokens to attend (group
/// "Model").
std::shared_ptr<AttendModelOptions> add_attend_model_options(CLI::App& attend);

/// Runs the model. text: the sentence, if one was given; show: attend's --show ("" = weights);
/// attend: the subcommand, whose random-model options given with --model are refused (exit 2).
int run_attend_model(const AttendModelOptions& opt, const std::string* text,
                     const std::string& show, const OutputOptions& out, const CLI::App& attend);

/// attend --model --prompts FILE (attend_prompts.cpp): each prompt's forward in turn, the model
/// and tokenizer opened once; head_stats and offsets pooled over every (prompt, query) pair.
/// Any other array: UsageError naming it.
int run_attend_prompts(const AttendModelOptions& opt, const std::string& show,
                       const io::OutputSpec& spec);

/// "3", "2,5", "3:6", "-1" over an axis of `length`: sorted, without repeats; UsageError
/// naming `option` and the accepted range otherwise.
std::vector<std::size_t> parse_index_list(const std::string& text, std::size_t length,
                                          const std::string& option);

/// The arrays of `show` for a run over the model, parsed once by parse_model_show.
struct ModelArrays {
    std::vector<Show> shown;           // in --show order, without repeats
    model::SummaryChoice summaries;    // head_stats, offsets, mean_weights, rollout
    std::optional<std::size_t> query;  // --query: scores, weights and context hold its row only
    model::LensChoice lens;            // lens, lens_next; --top, --position
    model::ValueChoice values;         // value_norms, value_weights, value_rollout
    /// -f html: the lens (top 1 at every position) drawn as the page's table, not in `shown`;
    /// lens_if_any: left out, without an error, when the model has no lens (page_arrays).
    bool page_lens = false, lens_if_any = false;
    bool has(Show item) const;
    bool any_summary() const {
        return summaries.head_stats || summaries.offsets || summaries.mean_weights ||
               summaries.rollout;
    }
};
/// UsageError naming --show for a name that is not an array and for `next` without an LM head.
ModelArrays parse_model_show(const std::string& show, const model::ModelConfig& c);
/// A token id as the tokenizer spells it ("Ġis", "▁is", "##ing"), or the id in digits
/// (`spelled`), and the text it stands for as labels show it ("␣is", "is", "##ing"; the
/// spelling with --raw-tokens).
struct Spelling {
    std::function<std::string(std::int64_t id)> spelled, label;
};
/// The streams of arrays.shown. tokens: the rows' tokens (n) as spelled, the `tokens` array;
/// labels: the same as labels show them (keys, query rows of pictures, the html page); spell:
/// next's token column (labels) and next_tokens (spelled). npz and npy store `tokens` as numpy
/// strings ('<U'), and, when the output holds several arrays, next's and lens's tokens as the
/// members `next_tokens` and `lens_tokens` beside their numbers. Pictures of one matrix name its
/// layer and head in the title.
template <class T>
std::vector<io::MatrixStream> model_streams(const ModelArrays& arrays, model::ModelRun<T>& run,
                                            const std::vector<std::int64_t>& ids,
                                            const std::vector<std::string>& tokens,
                                            const std::vector<std::string>& labels,
                                            const Spelling& spell, const io::OutputSpec& spec);

/// head_stats of both models, `rows` rows: [sequence (row / sequence_every, when not 0),]
/// layer, head, then HeadStats::kNames, row r being stats(r) (asked only when written). svg:
/// mean distance against entropy, one point per head, the heads that look one token back marked.
io::MatrixStream head_stats_stream(std::size_t rows,
                                   std::function<model::HeadStats(std::size_t)> stats,
                                   std::size_t sequence_every, std::string title, bool binary);

/// The summaries' arrays of both models: offsets (H, 2n-1 per block: o = j - i from -(n-1)),
/// mean_weights (n, n per block: a layer's) or rollout (n, n), stacked along `outer` (absent:
/// size 0), matrix a being block at(a).second of the summaries at(a).first, asked for when its
/// rows are written; row_label: offsets' head, else the query.
enum class SummaryArray { offsets, mean_weights, rollout };
using SummaryAt =
    std::function<std::pair<const model::AttentionSummaries*, std::size_t>(std::size_t a)>;
io::MatrixStream summary_array_stream(SummaryArray which, std::string title, io::StackAxis outer,
                                      io::StackLabel row_label, std::size_t heads, std::size_t n,
                                      SummaryAt at);

}  // namespace attn::cli
