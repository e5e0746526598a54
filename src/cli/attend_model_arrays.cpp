// The arrays of attend --model (--show): tokens, ids, scores, weights, context, hidden,
// positions, next. The per-layer arrays are 4-D (layers x heads x n x n, ...) with `layer`,
// `head` and `query` label fields; their rows are made when the writer asks for them, one layer
// of the forward at a time (model::ModelRun), so no layers x heads x n x n array is held.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <numeric>

#include "cli/attend_model.hpp"
#include "cli/errors.hpp"
#include "io/id_column.hpp"
#include "io/matrix_stack.hpp"

namespace attn::cli {

namespace {

const std::vector<std::string> kNames{"tokens",     "ids",     "scores",       "weights",
                                      "context",    "hidden",  "positions",    "next",
                                      "head_stats", "offsets", "mean_weights", "rollout"};

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        out.push_back(text.substr(pos, comma - pos));
        pos = comma + 1;
    }
    return out;
}

io::LabelColumn number_label(std::string name, std::shared_ptr<std::vector<std::size_t>> values,
                             std::size_t every) {
    return {std::move(name),
            [values, every](std::size_t r) {
                return std::to_string((*values)[(r / every) % values->size()]);
            },
            true};
}

/// layers x heads x n x c, the selected layers and heads as label values.
template <class T>
io::ArrayInfo per_head_info(model::ModelRun<T>& run, std::string name, std::string title,
                            std::size_t columns) {
    const std::size_t n = run.n(), L = run.layers().size(), H = run.heads().size();
    io::ArrayInfo info;
    info.name = std::move(name);
    info.title = std::move(title);
    info.shape = {L, H, n, columns};
    auto layers = std::make_shared<std::vector<std::size_t>>(run.layers());
    auto heads = std::make_shared<std::vector<std::size_t>>(run.heads());
    auto rows = std::make_shared<std::vector<std::size_t>>(n);
    std::iota(rows->begin(), rows->end(), 0);
    info.labels = {number_label("layer", layers, H * n), number_label("head", heads, n),
                   number_label("query", rows, 1)};
    info.column_labels = io::index_labels(columns);
    info.row_axis = "query";
    info.panel_rows = n;
    info.panel_columns = L > 1 ? H : 0;  // the model view: one row of head panels per layer
    for (const std::size_t l : *layers)
        for (const std::size_t h : *heads)
            info.panel_titles.push_back(fmt::format("layer {}, head {}", l, h));
    return info;
}

template <class T>
io::MatrixStream square_stream(model::ModelRun<T>& run, bool weights,
                               const std::vector<std::string>& tokens) {
    const std::size_t n = run.n(), H = run.heads().size();
    io::MatrixStream s;
    s.info = per_head_info(run, weights ? "weights" : "scores",
                           weights ? "attention weights (layer, head, query, key)"
                                   : "scores before masks: scaled q.k plus the position bias",
                           n);
    s.info.column_labels = tokens;  // keys by token, as the random model's (and the html page's)
    s.info.column_axis = "key";
    if (weights) s.info.value_range = std::pair{0.0, 1.0};
    s.produce = [&run, n, H, weights](std::size_t row0, std::size_t rows, double* out) {
        for (std::size_t r = row0; r < row0 + rows; ++r) {
            const std::size_t k = r / (H * n), h = (r / n) % H, i = r % n;
            const LayerResult<T>& lr = run.layer(k);
            const auto& m = weights ? lr.weights[run.heads()[h]] : lr.scaled_scores[run.heads()[h]];
            for (std::size_t j = 0; j < n; ++j) *out++ = static_cast<double>(m(i, j));
        }
    };
    return s;
}

template <class T>
io::MatrixStream context_stream(model::ModelRun<T>& run) {
    const std::size_t n = run.n(), H = run.heads().size(), hd = run.family().config().head_dim;
    io::MatrixStream s;
    s.info = per_head_info(run, "context",
                           "context per head: weights v (before the output "
                           "projection)",
                           hd);
    s.produce = [&run, n, H, hd](std::size_t row0, std::size_t rows, double* out) {
        run.finish();
        for (std::size_t r = row0; r < row0 + rows; ++r) {
            const auto& m = run.context()[r / (H * n)][(r / n) % H];
            for (std::size_t j = 0; j < hd; ++j) *out++ = static_cast<double>(m(r % n, j));
        }
    };
    return s;
}

template <class T>
io::MatrixStream hidden_stream(model::ModelRun<T>& run) {
    const std::size_t n = run.n(), d = run.family().config().hidden_size;
    const std::size_t L = run.layers().size();
    io::MatrixStream s;
    s.info.name = "hidden";
    s.info.title = "residual stream: before the first selected layer, then after each";
    s.info.shape = {L + 1, n, d};
    auto states = std::make_shared<std::vector<std::string>>();
    states->push_back(run.layers().front() == 0 ? "embedding"
                                                : fmt::format("before {}", run.layers().front()));
    for (const std::size_t l : run.layers()) states->push_back(fmt::format("after {}", l));
    s.info.labels = {{"state", [states, n](std::size_t r) { return (*states)[r / n]; }},
                     {"position", [n](std::size_t r) { return std::to_string(r % n); }, true}};
    s.info.column_labels = io::index_labels(d);
    s.produce = [&run, n, d](std::size_t row0, std::size_t rows, double* out) {
        run.finish();
        for (std::size_t r = row0; r < row0 + rows; ++r)
            for (std::size_t j = 0; j < d; ++j)
                *out++ = static_cast<double>(run.hidden()[r / n](r % n, j));
    };
    return s;
}

template <class T>
io::MatrixStream positions_stream(model::ModelRun<T>& run) {
    const auto& scheme = run.family().scheme();
    const std::size_t n = run.n();
    io::MatrixStream s;
    s.info.name = "positions";
    if (scheme.scheme() == positions::Scheme::none) {
        auto p = std::make_shared<model::Matrix<T>>(run.family().learned_positions());
        const std::size_t d = p->shape(1);
        s.info.title = "learned position rows";
        s.info.shape = {n, d};
        s.info.labels = {{"position", [](std::size_t r) { return std::to_string(r); }, true}};
        s.info.column_labels = io::index_labels(d);
        s.produce = [p, d](std::size_t row0, std::size_t rows, double* out) {
            for (std::size_t r = row0; r < row0 + rows; ++r)
                for (std::size_t j = 0; j < d; ++j) *out++ = static_cast<double>((*p)(r, j));
        };
        return s;
    }
    s.info.title = scheme.description();
    s.info.shape = scheme.positions_shape();
    const std::size_t cols = s.info.shape.back();
    if (s.info.shape.size() == 3)
        s.info.labels = {{"head", [n](std::size_t r) { return std::to_string(r / n); }, true},
                         {"query", [n](std::size_t r) { return std::to_string(r % n); }, true}};
    else
        s.info.labels = {{"position", [](std::size_t r) { return std::to_string(r); }, true}};
    s.info.column_labels = io::index_labels(cols);
    s.produce = [&scheme, cols](std::size_t row0, std::size_t rows, double* out) {
        std::vector<T> buf(rows * cols);
        scheme.positions_rows(row0, rows, buf.data());
        std::copy(buf.begin(), buf.end(), out);
    };
    return s;
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
            const std::vector<double>& p = run_->next();
            std::vector<std::size_t> order(p.size());
            std::iota(order.begin(), order.end(), 0);
            const auto k = static_cast<std::ptrdiff_t>(rows());
            std::partial_sort(
                order.begin(), order.begin() + k, order.end(),
                [&](std::size_t a, std::size_t b) { return p[a] != p[b] ? p[a] > p[b] : a < b; });
            top_->assign(order.begin(), order.begin() + k);
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
         [id, spell](std::size_t r) { return spell(static_cast<std::int64_t>(id(r))); },
         {}},
        {"probability", true,
         [next](std::size_t r) { return fmt::format("{}", next.probability(r)); },
         [next](std::size_t r) { return next.probability(r); }}};
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
            text.push_back(spell(static_cast<std::int64_t>(id)));
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

}  // namespace

io::MatrixStream head_stats_stream(std::size_t rows,
                                   std::function<model::HeadStats(std::size_t)> stats,
                                   std::size_t sequence_every, std::string title, bool binary) {
    std::vector<io::TableColumn> cols;
    const auto add = [&cols](const char* name, std::function<double(std::size_t)> v, bool count) {
        cols.push_back({name, true,
                        [v, count](std::size_t r) {
                            return count ? std::to_string(std::size_t(v(r)))
                                         : fmt::format("{}", v(r));
                        },
                        v});
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
/// rollout (n x n): model::AttentionSummaries, reduced during the first pass.
template <class T>
io::MatrixStream summary_stream(model::ModelRun<T>& run, const std::string& name, bool binary) {
    const std::size_t n = run.n(), L = run.layers().size(), H = run.heads().size();
    const auto sums = [&run] {
        run.finish();
        return run.summaries();
    };
    if (name == "head_stats")
        return head_stats_stream(
            L * H, [sums](std::size_t r) { return sums()->head_stats()[r]; }, 0,
            "per layer and head: entropy (nats), mean distance, weight on the first, previous "
            "and own position",
            binary);
    io::MatrixStream s;
    s.info.name = name;
    auto layers = std::make_shared<std::vector<std::size_t>>(run.layers());
    auto heads = std::make_shared<std::vector<std::size_t>>(run.heads());
    auto rows = std::make_shared<std::vector<std::size_t>>(n);
    std::iota(rows->begin(), rows->end(), 0);
    const std::vector<double>* (*pick)(const model::AttentionSummaries&) = nullptr;
    if (name == "offsets") {
        s.info.title = "mean weight by offset j - i, from -(n-1) to n-1";
        s.info.shape = {L, H, 2 * n - 1};
        s.info.labels = {number_label("layer", layers, H), number_label("head", heads, 1)};
        s.info.column_labels = io::offset_labels(n);
        pick = [](const model::AttentionSummaries& a) { return &a.offsets(); };
        s.info.row_curves = true;  // svg: one curve per head
        s.info.column_axis = "offset j - i (key minus query)";
        s.info.value_axis = "mean weight";
    } else if (name == "mean_weights") {
        s.info.title = "attention weights, mean over the selected heads";
        s.info.shape = {L, n, n};
        s.info.labels = {number_label("layer", layers, n), number_label("query", rows, 1)};
        s.info.column_labels = io::index_labels(n);
        s.info.panel_rows = n;
        pick = [](const model::AttentionSummaries& a) { return &a.mean_weights(); };
    } else {
        s.info.title = "attention rollout over the selected layers";
        s.info.shape = {n, n};
        s.info.labels = {number_label("query", rows, 1)};
        s.info.column_labels = io::index_labels(n);
        pick = [](const model::AttentionSummaries& a) { return &a.rollout(); };
    }
    const std::size_t cols = s.info.shape.back();
    s.produce = [sums, pick, cols](std::size_t row0, std::size_t count, double* out) {
        const std::vector<double>& v = *pick(*sums());
        std::copy_n(v.begin() + static_cast<std::ptrdiff_t>(row0 * cols), count * cols, out);
    };
    return s;
}

}  // namespace

std::string model_show_names() {
    std::string out;
    for (const auto& n : kNames) out += (out.empty() ? "" : ", ") + n;
    return out;
}

ModelArrays parse_model_show(const std::string& show, const model::ModelConfig& c) {
    ModelArrays a;
    for (const std::string& item : split(show)) {
        const std::vector<std::string> all = item == "all" ? kNames : std::vector{item};
        for (const std::string& name : all) {
            if (std::find(kNames.begin(), kNames.end(), name) == kNames.end())
                throw UsageError(fmt::format("--show: '{}' is not an array of attend --model ({})",
                                             name, model_show_names()));
            const bool lm = c.family != model::Family::bert && c.family != model::Family::t5;
            if (name == "next" && !lm) {
                if (item == "all") continue;
                throw UsageError(fmt::format(
                    "--show next: {} has no next-token head (causal LMs: gpt2, llama, mistral, "
                    "qwen2, bloom)",
                    model::family_name(c.family)));
            }
            if (std::find(a.names.begin(), a.names.end(), name) != a.names.end()) continue;
            a.names.push_back(name);
            a.scores |= name == "scores";
            a.weights |= name == "weights";
            a.next |= name == "next";
            a.summaries.head_stats |= name == "head_stats";
            a.summaries.offsets |= name == "offsets";
            a.summaries.mean_weights |= name == "mean_weights";
            a.summaries.rollout |= name == "rollout";
        }
    }
    return a;
}

template <class T>
std::vector<io::MatrixStream> model_streams(const ModelArrays& arrays, model::ModelRun<T>& run,
                                            const std::vector<std::int64_t>& ids,
                                            const std::vector<std::string>& tokens,
                                            const Spelling& spell, const io::OutputSpec& spec) {
    const bool binary = spec.format == io::Format::npy || spec.format == io::Format::npz;
    const NextTop<T> next(run);
    const bool picture = spec.format == io::Format::svg || spec.format == io::Format::png;
    std::vector<io::MatrixStream> out;
    for (const std::string& name : arrays.names) {
        io::MatrixStream s = name == "tokens"      ? id_stream(ids, tokens, true, binary)
                             : name == "ids"       ? id_stream(ids, tokens, false, binary)
                             : name == "scores"    ? square_stream(run, false, tokens)
                             : name == "weights"   ? square_stream(run, true, tokens)
                             : name == "context"   ? context_stream(run)
                             : name == "hidden"    ? hidden_stream(run)
                             : name == "positions" ? positions_stream(run)
                             : name == "next"      ? next_stream(next, binary, spell)
                                                   : summary_stream(run, name, binary || picture);
        if (s.info.dtype != io::Dtype::int64 && name != "next" && name != "head_stats")
            s.info.dtype = spec.dtype;
        out.push_back(std::move(s));
        if (name == "next" && binary && spec.holds_several_arrays())
            out.push_back(next_tokens_stream(next, spell));
    }
    return out;
}

template std::vector<io::MatrixStream> model_streams(const ModelArrays&, model::ModelRun<float>&,
                                                     const std::vector<std::int64_t>&,
                                                     const std::vector<std::string>&,
                                                     const Spelling&, const io::OutputSpec&);
template std::vector<io::MatrixStream> model_streams(const ModelArrays&, model::ModelRun<double>&,
                                                     const std::vector<std::int64_t>&,
                                                     const std::vector<std::string>&,
                                                     const Spelling&, const io::OutputSpec&);

}  // namespace attn::cli
