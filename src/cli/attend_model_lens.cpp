#include "cli/attend_model_lens.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "cli/errors.hpp"
#include "io/html.hpp"
#include "io/matrix_stack.hpp"

namespace attn::cli {

void add_lens_options(CLI::App& group, AttendModelOptions& opt) {
    opt.top_opt =
        group.add_option("--top", opt.top, "With --show lens: tokens per layer and position (5)")
            ->type_name("K");
    opt.position_opt =
        group
            .add_option("--position", opt.position,
                        "With --show lens: the one position shown (-1 the last); default all")
            ->type_name("P");
}

void lens_options(const AttendModelOptions& opt, std::size_t n, std::size_t V,
                  ModelArrays& arrays) {
    if (opt.top_opt->count() && !arrays.lens.top)
        throw UsageError("--top: applies to --show lens; add it there");
    if (opt.top < 1 || static_cast<std::uint64_t>(opt.top) > V)
        throw UsageError(fmt::format("--top: {} tokens; the vocabulary gives 1..{}", opt.top, V));
    arrays.lens.k = static_cast<std::size_t>(opt.top);
    if (arrays.lens.next && n < 2)
        throw UsageError("--show lens_next: needs at least 2 tokens (a next token to predict)");
    if (opt.position_opt->count() == 0) return;
    if (!arrays.lens.top) throw UsageError("--position: applies to --show lens; add it there");
    const auto count = static_cast<std::int64_t>(n);
    if (opt.position < -count || opt.position >= count)
        throw UsageError(
            fmt::format("--position: {} is not a position of the {} tokens ({}..{}, "
                        "-1 the last)",
                        opt.position, n, -count, count - 1));
    arrays.lens.position =
        static_cast<std::size_t>(opt.position < 0 ? count + opt.position : opt.position);
}

ModelArrays page_arrays(const AttendModelOptions& opt, const std::string& show,
                        const model::ModelConfig& c, std::size_t n) {
    ModelArrays a = parse_model_show(show.empty() ? "weights,value_norms,lens" : show, c);
    const bool drawn = !a.shown.empty() && a.shown.front() == Show::weights &&
                       std::all_of(a.shown.begin() + 1, a.shown.end(), [](Show s) {
                           return s == Show::value_norms || s == Show::lens;
                       });
    if (!drawn)
        throw UsageError(
            fmt::format("--show: -f html draws weights, then value_norms (a toggle of the head "
                        "view) and lens (a table under the tokens); not '{}'",
                        show));
    for (const CLI::Option* o : {opt.top_opt, opt.position_opt})
        if (o->count())
            throw UsageError(
                fmt::format("{}: -f html's lens table holds each layer's likeliest token at every "
                            "position; use another format for {}",
                            o->get_name(), o->get_name()));
    const std::size_t layers = parse_index_list(opt.layer, c.num_layers, "--layer").size();
    const std::size_t heads = parse_index_list(opt.head, c.num_heads, "--head").size();
    if (show.empty() && a.values.norms &&
        double(layers) * double(heads) * double(n) * double(n) * 2 > double(io::kMaxHtmlWeights)) {
        fmt::print(stderr,
                   "attn: warning: -f html: value_norms left out: with the weights, more than the "
                   "{} values a page holds (select fewer with --layer and --head)\n",
                   io::kMaxHtmlWeights);
        std::erase(a.shown, Show::value_norms);
        a.values.norms = false;
    }
    a.page_lens = a.lens.top;
    a.lens_if_any = show.empty();
    a.lens.k = 1;
    std::erase(a.shown, Show::lens);
    return a;
}

template <class T>
io::MatrixStream lens_stream(model::ModelRun<T>& run, const Spelling& spell, bool binary) {
    const model::LensChoice choice = run.lens_choice().value_or(model::LensChoice{});
    // row r: layer k = r / (P K), position index r / K % P, rank r % K
    const std::size_t K = std::min(choice.k, run.family().config().vocab_size);
    const std::size_t P = choice.position ? 1 : run.n();
    const std::size_t n = run.n();
    const std::optional<std::size_t> position = choice.position;
    // the position's row in the layer's LensRows (all positions, or the one asked for)
    const auto at = [&run, K, P, n, position](std::size_t r) {
        run.finish();
        const std::size_t p = position ? *position : r / K % P;
        const std::size_t row = run.lens_positions().size() == n ? p : 0;
        const model::LensRows& l = run.lens_rows()[r / (P * K)];
        return std::pair{&l, row * l.top + r % K};
    };
    const auto number = [](std::string name, std::function<double(std::size_t)> v) {
        return io::TableColumn{std::move(name), true,
                               [v](std::size_t r) { return std::to_string(std::size_t(v(r))); }, v};
    };
    const auto id = [at](std::size_t r) {
        const auto [l, i] = at(r);
        return l->ids[i];
    };
    std::vector<io::TableColumn> cols{
        number("layer", [&run, P, K](std::size_t r) { return double(run.layers()[r / (P * K)]); }),
        number("position", [position, P,
                            K](std::size_t r) { return double(position ? *position : r / K % P); }),
        number("rank", [K](std::size_t r) { return double(r % K + 1); }),
        number("id", [id](std::size_t r) { return double(id(r)); }),
        {"token",
         false,
         [id, spell](std::size_t r) { return spell.label(std::int64_t(id(r))); },
         {}},
        {"probability", true, {}, [at](std::size_t r) {
             const auto [l, i] = at(r);
             return l->probabilities[i];
         }}};
    return io::table_stream("lens",
                            "the logit lens: the likeliest tokens of each layer's residual "
                            "through the final norm and the unembedding",
                            run.layers().size() * P * K, std::move(cols), binary);
}

template <class T>
io::MatrixStream lens_tokens_stream(model::ModelRun<T>& run, const Spelling& spell) {
    // the ids of lens's rows in its order: (layer, position, rank)
    const auto ids = [&run] {
        run.finish();
        const model::LensChoice choice = run.lens_choice().value_or(model::LensChoice{});
        const std::size_t K = std::min(choice.k, run.family().config().vocab_size);
        const std::size_t first =
            choice.position && run.lens_positions().size() == run.n() ? *choice.position : 0;
        const std::size_t P = choice.position ? 1 : run.n();
        std::vector<std::size_t> out;
        for (const model::LensRows& l : run.lens_rows())
            for (std::size_t p = first; p < first + P; ++p)
                for (std::size_t k = 0; k < K; ++k) out.push_back(l.ids[p * l.top + k]);
        return out;
    };
    const model::LensChoice choice = run.lens_choice().value_or(model::LensChoice{});
    const std::size_t rows = run.layers().size() * (choice.position ? 1 : run.n()) *
                             std::min(choice.k, run.family().config().vocab_size);
    io::MatrixStream s;
    s.info.name = "lens_tokens";
    s.info.title = "lens's tokens, as the tokenizer spells them";
    s.info.shape = {rows};
    s.info.dtype = io::Dtype::int64;
    s.info.column_labels = io::index_labels(rows);
    s.info.strings = [ids, spell] {
        std::vector<std::string> text;
        for (const std::size_t id : ids()) text.push_back(spell.spelled(std::int64_t(id)));
        return text;
    };
    s.produce = [ids](std::size_t, std::size_t, double* out) {
        for (const std::size_t id : ids()) *out++ = static_cast<double>(id);
    };
    return s;
}

template <class T>
io::MatrixStream lens_table_stream(model::ModelRun<T>& run, const std::vector<std::string>& labels,
                                   const Spelling& spell) {
    // row k, column p: lens_rows()[k] at p, rank 1 (every position recorded)
    const std::size_t n = run.n();
    io::MatrixStream s = io::matrix_stack(
        "lens",
        "the logit lens: each layer's likeliest token at each position, and its probability", {},
        {}, io::every_row(run.layers().size()), labels, {io::value_label("layer", run.layers())},
        [&run, n](std::size_t, std::size_t, std::size_t i, std::size_t len, double* out) {
            run.finish();
            for (std::size_t k = i; k < i + len; ++k) {
                const model::LensRows& l = run.lens_rows()[k];
                for (std::size_t p = 0; p < n; ++p) *out++ = l.probabilities[p * l.top];
            }
        });
    s.info.strings = [&run, spell, n] {
        run.finish();
        std::vector<std::string> text;
        for (const model::LensRows& l : run.lens_rows())
            for (std::size_t p = 0; p < n; ++p)
                text.push_back(spell.label(std::int64_t(l.ids[p * l.top])));
        return text;
    };
    s.info.dtype = io::Dtype::float64;
    s.info.column_axis = "position";
    s.info.value_range = std::pair{0.0, 1.0};
    return s;
}

template <class T>
io::MatrixStream lens_next_stream(model::ModelRun<T>& run, const std::vector<std::string>& tokens) {
    // (layers, n - 1): row k, column p = lens_rows()[k].target[p], the token at p + 1
    std::vector<std::string> next(tokens.begin() + 1, tokens.end());
    io::MatrixStream s = io::matrix_stack(
        "lens_next", "the probability each layer's lens gives the next token", {}, {},
        io::every_row(run.layers().size()), std::move(next),
        {io::value_label("layer", run.layers())},
        [&run](std::size_t, std::size_t, std::size_t i, std::size_t len, double* out) {
            run.finish();
            for (std::size_t k = i; k < i + len; ++k)
                out = std::copy_n(run.lens_rows()[k].target.begin(), run.n() - 1, out);
        });
    s.info.column_axis = "next token";
    s.info.value_range = std::pair{0.0, 1.0};
    return s;
}

template <class T>
io::MatrixStream value_norms_stream(model::ModelRun<T>& run, const std::vector<std::string>& tokens,
                                    std::optional<std::size_t> query) {
    // [k, h, i, j] = A_h[i, j] ||f_h(x_j)|| of the k-th layer, h-th selected head
    io::MatrixStream s = io::matrix_stack(
        "value_norms", "||A_ij f_h(x_j)||: attention weighed by the norm of what the value moves",
        io::value_axis("layer", run.layers()), io::value_axis("head", run.heads()),
        query ? std::vector<std::size_t>{*query} : io::every_row(run.n()), tokens,
        {io::index_label("query", true)},
        [&run](std::size_t k, std::size_t h, std::size_t i, std::size_t len, double* out) {
            const std::size_t head = run.heads()[h], n = run.n();
            const auto& w = run.layer(k).weights[head];
            const model::ValueVectors& f = run.layer_values();
            for (std::size_t r = i; r < i + len; ++r)
                for (std::size_t j = 0; j < n; ++j)
                    *out++ = static_cast<double>(w(r, j)) * f.norm(j, head);
        },
        {io::PanelTitles::every_axis, true});
    s.info.row_axis = "query";
    s.info.column_axis = "key";
    return s;
}

template <class T>
io::MatrixStream value_summary_stream(model::ModelRun<T>& run, bool rollout) {
    const SummaryAt at = [&run](std::size_t k) {
        run.finish();
        return std::pair{run.value_summaries(), k};
    };
    io::MatrixStream s =
        rollout
            ? summary_array_stream(SummaryArray::rollout, "rollout of the value-weighted attention",
                                   {}, io::index_label("query", true), 1, run.n(), at)
            : summary_array_stream(SummaryArray::mean_weights,
                                   "||sum_h A_ij f_h(x_j)|| over the heads, rows normalised",
                                   io::value_axis("layer", run.layers()),
                                   io::index_label("query", true), 1, run.n(), at);
    s.info.name = rollout ? "value_rollout" : "value_weights";
    if (!rollout) s.info.panel_rows = run.n();
    return s;
}

#define ATTN_LENS_STREAMS(T)                                                                       \
    template io::MatrixStream lens_stream(model::ModelRun<T>&, const Spelling&, bool);             \
    template io::MatrixStream lens_tokens_stream(model::ModelRun<T>&, const Spelling&);            \
    template io::MatrixStream lens_table_stream(model::ModelRun<T>&,                               \
                                                const std::vector<std::string>&, const Spelling&); \
    template io::MatrixStream lens_next_stream(model::ModelRun<T>&,                                \
                                               const std::vector<std::string>&);                   \
    template io::MatrixStream value_norms_stream(                                                  \
        model::ModelRun<T>&, const std::vector<std::string>&, std::optional<std::size_t>);         \
    template io::MatrixStream value_summary_stream(model::ModelRun<T>&, bool);
ATTN_LENS_STREAMS(float)
ATTN_LENS_STREAMS(double)

}  // namespace attn::cli
