// The producers of attend --model's arrays (--show; their rows are attend_show.cpp's): tokens,
// ids, scores, weights, context, hidden, positions, next, and the summaries. The per-layer
// arrays are 4-D (layers x heads x n x n, ...), io::matrix_stack over the selected layers and
// heads with `layer`, `head` and `query` label fields; their rows are made when the writer asks
// for them, one layer of the forward at a time (model::ModelRun), so no layers x heads x n x n
// array is held. head_stats_stream and summary_array_stream are attend's too: the random
// model's summaries are the same arrays.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "attn/model/families.hpp"
#include "cli/attend_model.hpp"
#include "cli/attend_model_lens.hpp"
#include "cli/errors.hpp"
#include "cli/show_table.hpp"
#include "io/format_columns.hpp"
#include "io/id_column.hpp"
#include "io/matrix_stack.hpp"

namespace attn::cli {

namespace {

/// layers x heads x n x columns: the selected layers and heads as label values, rows by query,
/// a panel per (layer, head) (the model view: one row of head panels per layer).
template <class T>
io::MatrixStream per_head_stack(model::ModelRun<T>& run, std::string name, std::string title,
                                std::vector<std::string> columns, io::StackBlock block,
                                std::optional<std::size_t> query,
                                std::vector<io::StackLabel> rows) {
    io::MatrixStream s = io::matrix_stack(
        std::move(name), std::move(title), io::value_axis("layer", run.layers()),
        io::value_axis("head", run.heads()),
        query ? std::vector<std::size_t>{*query} : io::every_row(run.n()), std::move(columns),
        std::move(rows), std::move(block), {io::PanelTitles::every_axis, true});
    s.info.row_axis = "query";
    return s;
}

// Rows [i, i + len) of a held matrix m, as doubles.
template <class M>
void copy_rows(const M& m, std::size_t i, std::size_t len, double* out) {
    for (std::size_t r = i; r < i + len; ++r)
        for (std::size_t j = 0; j < m.shape(1); ++j) *out++ = static_cast<double>(m(r, j));
}

/// A row label field `name` holding the row's index, then, in pictures, its token's label
/// ("0 Life", "1 ␣is"; text formats keep one number per field).
std::vector<io::StackLabel> token_rows(std::string name, const std::vector<std::string>& labels,
                                       bool picture) {
    std::vector<io::StackLabel> rows{io::index_label(std::move(name), true)};
    if (picture) {
        auto shared = std::make_shared<const std::vector<std::string>>(labels);
        rows.push_back({"token", [shared](std::size_t i) { return (*shared)[i]; }});
    }
    return rows;
}

template <class T>
io::MatrixStream square_stream(model::ModelRun<T>& run, bool weights,
                               const std::vector<std::string>& tokens,
                               std::optional<std::size_t> query, bool picture) {
    // keys by token, as the random model's (and the html page's)
    io::MatrixStream s = per_head_stack(
        run, weights ? "weights" : "scores",
        weights ? "attention weights (layer, head, query, key)"
                : "scores before masks: scaled q.k plus the position bias",
        tokens,
        [&run, weights](std::size_t k, std::size_t h, std::size_t i, std::size_t len, double* out) {
            const LayerResult<T>& lr = run.layer(k);
            copy_rows(weights ? lr.weights[run.heads()[h]] : lr.scaled_scores[run.heads()[h]], i,
                      len, out);
        },
        query, token_rows("query", tokens, picture));
    s.info.column_axis = "key";
    if (weights) s.info.value_range = std::pair{0.0, 1.0};
    return s;
}

template <class T>
io::MatrixStream context_stream(model::ModelRun<T>& run, std::optional<std::size_t> query,
                                std::vector<io::StackLabel> rows) {
    return per_head_stack(
        run, "context", "context per head: weights v (before the output projection)",
        io::index_labels(run.family().config().head_dim),
        [&run](std::size_t k, std::size_t h, std::size_t i, std::size_t len, double* out) {
            run.finish();
            copy_rows(run.context()[k][h], i, len, out);
        },
        query, std::move(rows));
}

template <class T>
io::MatrixStream hidden_stream(model::ModelRun<T>& run, std::vector<io::StackLabel> rows) {
    // (layers + 1, n, d): the state before the first selected layer, then after each
    auto states = std::make_shared<std::vector<std::string>>();
    states->push_back(run.layers().front() == 0 ? "embedding"
                                                : fmt::format("before {}", run.layers().front()));
    for (const std::size_t l : run.layers()) states->push_back(fmt::format("after {}", l));
    const io::StackAxis state{
        states->size(), {"state", [states](std::size_t k) { return (*states)[k]; }}, {}};
    return io::matrix_stack(
        "hidden", "residual stream: before the first selected layer, then after each", state, {},
        io::every_row(run.n()), io::index_labels(run.family().config().hidden_size),
        std::move(rows),
        [&run](std::size_t k, std::size_t, std::size_t i, std::size_t len, double* out) {
            run.finish();
            copy_rows(run.hidden()[k], i, len, out);
        });
}

template <class T>
io::MatrixStream positions_stream(model::ModelRun<T>& run) {
    const auto& scheme = run.family().scheme();
    const io::StackLabel position = io::index_label("position", true);
    if (scheme.scheme() == positions::Scheme::none) {  // the first n rows of the table
        auto p = std::make_shared<model::Matrix<T>>(run.family().learned_positions());
        return io::matrix_stack(
            "positions", "learned position rows", {}, {}, io::every_row(run.n()),
            io::index_labels(p->shape(1)), {position},
            io::held_rows<T>([p](std::size_t, std::size_t) { return p->data(); }, p->shape(1)));
    }
    // (n, d), or a bias per head (H, n, n)
    const std::vector<std::size_t> shape = scheme.positions_shape();
    const bool bias = shape.size() == 3;
    const std::size_t rows = shape[shape.size() - 2], cols = shape.back();
    return io::matrix_stack(
        "positions", scheme.description(),
        bias ? io::value_axis("head", io::every_row(shape[0])) : io::StackAxis{}, {},
        io::every_row(rows), io::index_labels(cols),
        {bias ? io::index_label("query", true) : position},
        io::converted_rows<T>(
            [&scheme, rows](std::size_t h, std::size_t, std::size_t i, std::size_t len, T* buf) {
                scheme.positions_rows(h * rows + i, len, buf);
            },
            cols));
}

// The 10 likeliest next ids (ties by id) and their probabilities, computed when first asked
// for, after the forward. Copies share them.
template <class T>
class NextTop {
  public:
    explicit NextTop(model::ModelRun<T>& run) : run_(&run) {}
    std::size_t rows() const {
        return std::min<std::size_t>(10, run_->family().config().vocab_size);
    }
    const std::vector<std::size_t>& ids() const {
        if (top_->empty()) {
            run_->finish();
            *top_ = model::top_ids(run_->next(), rows());
        }
        return *top_;
    }
    double probability(std::size_t rank) const { return run_->next()[ids()[rank]]; }

  private:
    model::ModelRun<T>* run_;
    std::shared_ptr<std::vector<std::size_t>> top_ = std::make_shared<std::vector<std::size_t>>();
};

template <class T>
io::MatrixStream next_stream(NextTop<T> next, bool binary, const Spelling& spell) {
    // rank, id, token (as the tokenizer spells it), probability
    const auto id = [next](std::size_t r) { return next.ids()[r]; };
    std::vector<io::TableColumn> cols{
        {"rank", true, [](std::size_t r) { return std::to_string(r + 1); },
         [](std::size_t r) { return static_cast<double>(r + 1); }},
        {"id", true, [id](std::size_t r) { return std::to_string(id(r)); },
         [id](std::size_t r) { return static_cast<double>(id(r)); }},
        {"token",
         false,
         [id, spell](std::size_t r) { return spell.label(static_cast<std::int64_t>(id(r))); },
         {}},
        {"probability", true, {}, [next](std::size_t r) { return next.probability(r); }}};
    return io::table_stream("next", "the 10 likeliest next tokens after the last position",
                            next.rows(), std::move(cols), binary);
}

// next's token column as a text array, for binary formats (whose tables leave text out).
template <class T>
io::MatrixStream next_tokens_stream(NextTop<T> next, const Spelling& spell) {
    io::MatrixStream s;
    s.info.name = "next_tokens";
    s.info.title = "the 10 likeliest next tokens, as the tokenizer spells them";
    s.info.shape = {next.rows()};
    s.info.dtype = io::Dtype::int64;
    s.info.column_labels = io::index_labels(next.rows());
    s.info.strings = [next, spell] {
        std::vector<std::string> text;
        for (const std::size_t id : next.ids())
            text.push_back(spell.spelled(static_cast<std::int64_t>(id)));
        return text;
    };
    s.produce = [next](std::size_t, std::size_t, double* out) {
        for (const std::size_t id : next.ids()) *out++ = static_cast<double>(id);
    };
    return s;
}

io::MatrixStream id_stream(const std::vector<std::int64_t>& ids,
                           const std::vector<std::string>& token_text, bool tokens, bool binary) {
    io::IdColumn c;
    c.name = tokens ? "tokens" : "ids";
    c.title = tokens ? "tokens" : "token ids";
    for (const std::int64_t id : ids) c.ids.push_back(static_cast<double>(id));
    if (tokens) c.tokens = token_text;
    c.numeric_position = true;
    c.strings = tokens;
    return io::id_column(std::move(c), binary);
}

/// What the producers of --model's arrays read: the run, its top next tokens (asked only for
/// `next`), the rows' ids and tokens.
template <class T>
struct ModelSources {
    model::ModelRun<T>& run;
    NextTop<T> next;
    const std::vector<std::int64_t>& ids;
    const std::vector<std::string>& tokens;
    const std::vector<std::string>& labels;  // tokens as labels show them
    const Spelling& spell;
    bool binary, picture;  // numpy's formats; svg and png
    bool drawn;            // pictures and the heatmap: rows labelled by their tokens
    std::optional<std::size_t> query;
};

}  // namespace

io::MatrixStream head_stats_stream(std::size_t rows,
                                   std::function<model::HeadStats(std::size_t)> stats,
                                   std::size_t sequence_every, std::string title, bool binary) {
    std::vector<io::TableColumn> cols;
    // counts as exact text; the statistics as numbers the writer formats (--precision)
    const auto add = [&cols](const char* name, std::function<double(std::size_t)> v, bool count) {
        std::function<std::string(std::size_t)> text;
        if (count) text = [v](std::size_t r) { return std::to_string(std::size_t(v(r))); };
        cols.push_back({name, true, std::move(text), v});
    };
    if (sequence_every > 0)
        add(
            "sequence", [sequence_every](std::size_t r) { return double(r / sequence_every); },
            true);
    add(
        "layer", [stats](std::size_t r) { return double(stats(r).layer); }, true);
    add(
        "head", [stats](std::size_t r) { return double(stats(r).head); }, true);
    for (std::size_t f = 0; f < model::HeadStats::kNames.size(); ++f)
        add(
            model::HeadStats::kNames[f], [stats, f](std::size_t r) { return stats(r).values()[f]; },
            false);
    io::MatrixStream s =
        io::table_stream("head_stats", std::move(title), rows, std::move(cols), binary);
    s.info.scatter = {"distance",
                      "entropy",
                      "mean distance sum_j w_ij |i - j| (tokens)",
                      "entropy (nats)",
                      {"layer", "head"},
                      "previous",
                      "weight on the previous token > 0.5"};
    return s;
}

namespace {

/// head_stats (a table), offsets (layers x heads x 2n-1), mean_weights (layers x n x n),
/// rollout (n x n): model::AttentionSummaries, reduced during the first pass. head_stats'
/// numbers are values in binary formats and pictures (its scatter).
template <class T>
io::MatrixStream summary_stream(const ModelSources<T>& r, Show item) {
    model::ModelRun<T>& run = r.run;
    const std::size_t n = run.n(), L = run.layers().size(), H = run.heads().size();
    const SummaryAt at = [&run](std::size_t k) {
        run.finish();
        return std::pair{run.summaries(), k};
    };
    if (item == Show::head_stats)
        return head_stats_stream(
            L * H, [at](std::size_t r) { return at(0).first->head_stats()[r]; }, 0,
            "per layer and head: entropy (nats), mean distance, weight on the first, previous "
            "and own position",
            r.binary || r.picture);
    if (item == Show::offsets)
        return summary_array_stream(
            SummaryArray::offsets, "mean weight by offset j - i, from -(n-1) to n-1",
            io::value_axis("layer", run.layers()), io::value_label("head", run.heads()), H, n, at);
    io::MatrixStream s =
        item == Show::rollout
            ? summary_array_stream(SummaryArray::rollout,
                                   "attention rollout over the selected layers", {},
                                   io::index_label("query", true), H, n, at)
            : summary_array_stream(
                  SummaryArray::mean_weights, "attention weights, mean over the selected heads",
                  io::value_axis("layer", run.layers()), io::index_label("query", true), H, n, at);
    if (item == Show::mean_weights) s.info.panel_rows = n;
    if (r.drawn) {  // n x n blocks: tokens on both axes, as the weights'
        s.info.column_labels = r.labels;
        s.info.labels.push_back(
            {"token", [labels = r.labels, n](std::size_t row) { return labels[row % n]; }});
    }
    return s;
}

/// attend --model's producers, in the order `all` gives them; the rows are attend_arrays()'.
template <class T>
using ModelTable = ShowTable<Show, ModelSources<T>>;
template <class T>
const ModelTable<T>& model_show_table() {
    using S = Show;
    using R = const ModelSources<T>&;
    static const ModelTable<T> table = run_show_table<ModelSources<T>>(
        AttendRun::model,
        {{S::tokens, [](R r) { return id_stream(r.ids, r.tokens, true, r.binary); }},
         {S::ids, [](R r) { return id_stream(r.ids, r.tokens, false, r.binary); }},
         {S::scores, [](R r) { return square_stream(r.run, false, r.labels, r.query, r.drawn); }},
         {S::weights, [](R r) { return square_stream(r.run, true, r.labels, r.query, r.drawn); }},
         {S::context,
          [](R r) {
              return context_stream(r.run, r.query, token_rows("query", r.labels, r.drawn));
          }},
         {S::hidden,
          [](R r) { return hidden_stream(r.run, token_rows("position", r.labels, r.drawn)); }},
         {S::positions, [](R r) { return positions_stream(r.run); }},
         {S::next, [](R r) { return next_stream(r.next, r.binary, r.spell); }},
         {S::head_stats, [](R r) { return summary_stream(r, S::head_stats); }},
         {S::offsets, [](R r) { return summary_stream(r, S::offsets); }},
         {S::mean_weights, [](R r) { return summary_stream(r, S::mean_weights); }},
         {S::rollout, [](R r) { return summary_stream(r, S::rollout); }},
         {S::lens, [](R r) { return lens_stream(r.run, r.spell, r.binary); }},
         {S::lens_next, [](R r) { return lens_next_stream(r.run, r.labels); }},
         {S::value_norms, [](R r) { return value_norms_stream(r.run, r.labels, r.query); }},
         {S::value_weights, [](R r) { return value_summary_stream(r.run, false); }},
         {S::value_rollout, [](R r) { return value_summary_stream(r.run, true); }}});
    return table;
}

}  // namespace

io::MatrixStream summary_array_stream(SummaryArray which, std::string title, io::StackAxis outer,
                                      io::StackLabel row_label, std::size_t heads, std::size_t n,
                                      SummaryAt at) {
    const bool offsets = which == SummaryArray::offsets;
    const char* names[] = {"offsets", "mean_weights", "rollout"};
    std::vector<std::string> columns = offsets ? io::offset_labels(n) : io::index_labels(n);
    const std::size_t cols = columns.size(), rows = offsets ? heads : n;
    io::MatrixStream s = io::matrix_stack(
        names[static_cast<int>(which)], std::move(title), std::move(outer), {}, io::every_row(rows),
        std::move(columns), {std::move(row_label)},
        [which, at, rows, cols](std::size_t a, std::size_t, std::size_t i, std::size_t len,
                                double* out) {
            const auto [sums, block] = at(a);
            const std::vector<double>& v = which == SummaryArray::offsets ? sums->offsets()
                                           : which == SummaryArray::mean_weights
                                               ? sums->mean_weights()
                                               : sums->rollout();
            std::copy_n(v.begin() + static_cast<std::ptrdiff_t>((block * rows + i) * cols),
                        len * cols, out);
        });
    if (offsets) {
        s.info.row_curves = true;  // svg: one curve per head
        s.info.column_axis = "offset j - i (key minus query)";
        s.info.value_axis = "mean weight";
    }
    return s;
}

bool ModelArrays::has(Show item) const {
    return std::find(shown.begin(), shown.end(), item) != shown.end();
}

ModelArrays parse_model_show(const std::string& show, const model::ModelConfig& c) {
    const ModelTable<float>& table = model_show_table<float>();
    const bool lm = c.family->lm_head;
    const std::vector<ShowNeed> needs{
        {need::lm_head, fmt::format("{} has no next-token head (causal LMs: {})", c.model_type(),
                                    model::family_names(true))}};
    const auto unknown = [&table](const std::string& name) {
        std::string names;
        for (const auto& e : table) names += (names.empty() ? "" : ", ") + e.name;
        return fmt::format("--show: '{}' is not an array of attend --model ({})", name, names);
    };
    ModelArrays a;
    // a model's tokens carry no ids (need::binary) and it always has positions
    const unsigned have = need::tokens | need::scheme | need::binary | need::layers;
    a.shown = parse_show_list(table, show, have | (lm ? need::lm_head : 0), needs, unknown);
    a.summaries.head_stats = a.has(Show::head_stats);
    a.summaries.offsets = a.has(Show::offsets);
    a.summaries.mean_weights = a.has(Show::mean_weights);
    a.summaries.rollout = a.has(Show::rollout);
    a.lens.top = a.has(Show::lens);
    a.lens.next = a.has(Show::lens_next);
    a.values = {a.has(Show::value_norms), a.has(Show::value_weights), a.has(Show::value_rollout)};
    return a;
}

template <class T>
std::vector<io::MatrixStream> model_streams(const ModelArrays& arrays, model::ModelRun<T>& run,
                                            const std::vector<std::int64_t>& ids,
                                            const std::vector<std::string>& tokens,
                                            const std::vector<std::string>& labels,
                                            const Spelling& spell, const io::OutputSpec& spec) {
    const io::FormatColumns& is = io::format_columns(spec.format);
    const ModelSources<T> sources{run,   NextTop<T>(run), ids,        tokens,   labels,
                                  spell, is.numpy,        is.picture, is.drawn, arrays.query};
    std::vector<io::MatrixStream> out;
    for (const Show item : arrays.shown) {
        io::MatrixStream s = show_entry(model_show_table<T>(), item).stream(sources);
        if (is.drawn && s.info.panel_titles.size() == 1) {       // one matrix: its layer and head
            s.info.title += ", " + s.info.panel_titles.front();  // in the title, not on each row
            std::erase_if(s.info.labels, [](const io::LabelColumn& l) {
                return l.name == "layer" || l.name == "head";
            });
        }
        if (s.info.dtype != io::Dtype::int64 && item != Show::next && item != Show::head_stats &&
            item != Show::lens)
            s.info.dtype = spec.dtype;
        out.push_back(std::move(s));
        if (item == Show::next && is.numpy && spec.holds_several_arrays())
            out.push_back(next_tokens_stream(sources.next, spell));
        if (item == Show::lens && is.numpy && spec.holds_several_arrays())
            out.push_back(lens_tokens_stream(run, spell));
    }
    return out;
}

template std::vector<io::MatrixStream> model_streams(const ModelArrays&, model::ModelRun<float>&,
                                                     const std::vector<std::int64_t>&,
                                                     const std::vector<std::string>&,
                                                     const std::vector<std::string>&,
                                                     const Spelling&, const io::OutputSpec&);
template std::vector<io::MatrixStream> model_streams(const ModelArrays&, model::ModelRun<double>&,
                                                     const std::vector<std::int64_t>&,
                                                     const std::vector<std::string>&,
                                                     const std::vector<std::string>&,
                                                     const Spelling&, const io::OutputSpec&);

}  // namespace attn::cli
