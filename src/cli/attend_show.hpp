// attn attend's arrays (--show), one table for both runs: the random model (the notebook's
// sentence, --input's rows) and --model's checkpoint. A row gives an array's name, its help,
// its shape in each run it applies to ("" = not in that run), what it needs of the run,
// whether `all` holds it and what it asks the run to make or keep (attend_show.cpp). Each
// run lists its producers (attend_arrays.cpp, attend_model_arrays.cpp); run_show_table joins
// them with the rows into the ShowTable that parses --show, so names, help and needs are
// written once.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/show_table.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

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
    hidden,
    next,
    equivariance,
    w_query,
    w_key,
    w_value,
    w_out,
    head_stats,  // the summaries (model::AttentionSummaries)
    offsets,
    mean_weights,
    rollout,
    lens,  // past the weights (attend_model_lens.cpp)
    lens_next,
    value_norms,
    value_weights,
    value_rollout
};

/// What arrays of the --show table need of the run (AttendArray::needs), one bit each.
namespace need {
constexpr unsigned tokens = 1;        // a sentence, not --input rows
constexpr unsigned out_proj = 2;      // an output projection: --out-proj or --wo
constexpr unsigned scheme = 4;        // positions: a --scheme, or a model's own
constexpr unsigned permute = 8;       // --permute
constexpr unsigned projections = 16;  // W_q, W_k, W_v: not --no-projection
constexpr unsigned binary = 32;       // `tokens` carries no ids: npy or npz, or --model
constexpr unsigned lm_head = 64;      // the model ends in a next-token head
constexpr unsigned layers = 128;      // a model's layers (`all` holds the summaries)
}  // namespace need

/// What arrays of the --show table ask the run to make or keep (AttendArray::asks), one bit
/// each; both memory plans read them (setup_attention, model_keep).
namespace ask {
constexpr unsigned rows = 1;       // rows n wide, made a block at a time as they are written
constexpr unsigned summaries = 2;  // the heads' summaries (model::AttentionSummaries)
constexpr unsigned masked = 4;     // the masked scores (LayerOptions::keep_masked)
constexpr unsigned unrotated = 8;  // q and k before RoPE (LayerOptions::keep_unrotated)
constexpr unsigned square = 16;    // --model: every head's n x n weights (the direct path)
constexpr unsigned hidden = 32;    // --model: (n, d) per selected layer, and the first
constexpr unsigned contexts = 64;  // --model: (n, d_head) per selected layer and head
}  // namespace ask

/// The runs of attend: the random model (a sentence or --input's rows, one layer) and --model.
enum class AttendRun { random, model };

/// One array of attend, for every run.
struct AttendArray {
    Show item;
    std::string name;
    std::string shape;        // in the random model's run; "" = not there
    std::string model_shape;  // in --model's run; "" = not there
    std::string help;         // one line; where the runs differ, both meanings
    unsigned needs = 0;       // need:: bits
    bool in_all = true;
    unsigned all_needs = 0;  // need:: bits `all` asks besides `needs`
    unsigned asks = 0;       // ask:: bits
};

/// Every array, in the help's order.
const std::vector<AttendArray>& attend_arrays();

/// "Arrays (--show):" and a line per array: its name, shape per run and help.
std::string attend_show_help();

/// The row of item (the table holds every Show).
const AttendArray& attend_array(Show item);

template <class Run>
using ShowProducers = std::vector<std::pair<Show, std::function<io::MatrixStream(const Run&)>>>;

/// A run's --show table: the rows of its producers, in their order (`all`'s order and the
/// order names are listed in messages), with the run's shape. std::logic_error for a producer
/// of an array the table does not give this run.
template <class Run>
ShowTable<Show, Run> run_show_table(AttendRun run, ShowProducers<Run> producers) {
    ShowTable<Show, Run> table;
    for (auto& [item, stream] : producers) {
        const AttendArray& a = attend_array(item);
        const std::string& shape = run == AttendRun::model ? a.model_shape : a.shape;
        if (shape.empty())
            throw std::logic_error("attend: " + a.name + " has no shape in this run");
        table.push_back({item, a.name, shape, a.help, std::move(stream), a.needs, a.in_all,
                         a.all_needs, a.asks});
    }
    return table;
}

}  // namespace attn::cli
