// attn attend's arrays of the random model: a producer per row of attend_arrays() it shows
// (attend_show.cpp: names, shapes, help, needs) over the layer's results (attn::LayerResult),
// the --show list against them, with the summaries of the layer's heads (model::summarise_each;
// their arrays are --model's, head_stats_stream and summary_array_stream). Stacks of matrices
// are io::matrix_stack.
#include "cli/attend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "attn/model/summaries.hpp"
#include "cli/attend_model.hpp"
#include "io/id_column.hpp"
#include "io/matrix_stack.hpp"

namespace attn::cli {

namespace {

template <class T>
std::string heads_text(const SentenceArrays<T>& a) {
    return a.layer.heads > 1 ? fmt::format(", {} heads", a.layer.heads) : "";
}

template <class T>
std::size_t head_axis(const SentenceArrays<T>& a) {
    return a.layer.heads > 1 ? a.layer.heads : 0;
}

// A stack over the sentence, ([b,] [H,] rows, cols): per_head, a matrix per head (its title
// saying how many); queried, only --query's row of each; rows labelled by position and token.
template <class T>
io::MatrixStream sentence_stack(const SentenceArrays<T>& a, std::string name, std::string title,
                                bool per_head, bool queried, std::size_t cols, io::StackBlock block,
                                io::StackPanels panels = {}) {
    return io::matrix_stack(
        std::move(name), title + (per_head ? heads_text(a) : ""), a.s.batch,
        per_head ? head_axis(a) : 0,
        queried && a.query ? std::vector<std::size_t>{*a.query} : io::every_row(a.s.n()),
        io::index_labels(cols), io::position_labels(a.s.tokens), std::move(block), panels);
}

// The vocabulary (V, 1): its ids, rows labelled by token.
template <class T>
io::MatrixStream vocabulary_stream(const SentenceArrays<T>& a) {
    std::vector<double> ids(a.s.vocab.size());
    std::iota(ids.begin(), ids.end(), 0.0);
    return io::id_column({.name = "vocabulary",
                          .title = "vocabulary: sorted unique tokens and their ids",
                          .ids = std::move(ids),
                          .tokens = a.s.vocab,
                          .position = false},
                         false);
}

// The tokens (n, 1) and their ids, or the ids alone (n, 1), rows labelled by position (and
// token). npy and npz: the tokens 1-D as numpy strings ('<U'), the ids 1-D.
template <class T>
io::MatrixStream ids_stream(const SentenceArrays<T>& a, bool tokens) {
    return io::id_column(
        {.name = tokens ? "tokens" : "ids",
         .title = tokens ? "tokens and their ids (sentence_int)" : "token ids (sentence_int)",
         .ids = std::vector<double>(a.s.ids.begin(), a.s.ids.end()),
         .tokens = tokens ? a.s.tokens : std::vector<std::string>{},
         .strings = tokens},
        a.binary);
}

template <class T>
io::MatrixStream embeddings_stream(const SentenceArrays<T>& a) {
    const auto& x = a.run.x;
    return sentence_stack(
        a, "embeddings", a.embed_title, false, false, a.layer.d_in,
        io::held_rows<T>([&x](std::size_t b, std::size_t) { return x[b].data(); }, a.layer.d_in));
}

// The projections' arrays, a row each for the query, the key and the value: the weights
// (d_in, d) per head, and X W per batch element and head.
template <class T>
struct Projection {
    const char *w_name, *w_title, *name, *title;
    std::size_t LayerShape::*width;
    std::vector<xt::xtensor<T, 2>> AttentionWeights<T>::*weights;
    std::vector<xt::xtensor<T, 2>> LayerResult<T>::*rows;
    bool queried;  // --query selects its rows
};
template <class T>
const Projection<T> kProjections[] = {
    {"w_query", "projection W_query (d_in x d_q)", "queries", "queries Q = X W_query",
     &LayerShape::d_k, &AttentionWeights<T>::query, &LayerResult<T>::queries, true},
    {"w_key", "projection W_key (d_in x d_k)", "keys", "keys K = X W_key", &LayerShape::d_k,
     &AttentionWeights<T>::key, &LayerResult<T>::keys, false},
    {"w_value", "projection W_value (d_in x d_v)", "values", "values V = X W_value",
     &LayerShape::d_v, &AttentionWeights<T>::value, &LayerResult<T>::values, false}};

// W_query, W_key or W_value (kProjections' row `which`) of every head, (d_in, d) each.
template <class T>
io::MatrixStream weight_stream(const SentenceArrays<T>& a, std::size_t which) {
    const Projection<T>& p = kProjections<T>[which];
    const std::size_t d = a.layer.*p.width;
    return io::matrix_stack(
        p.w_name, p.w_title + heads_text(a), 0, head_axis(a), io::every_row(a.layer.d_in),
        io::index_labels(d), {io::index_label("in")},
        io::held_rows<T>(
            [&w = a.par.*p.weights](std::size_t, std::size_t h) { return w[h].data(); }, d));
}

// W_o, (H d_v, d_out).
template <class T>
io::MatrixStream out_weight_stream(const SentenceArrays<T>& a) {
    return io::matrix_stack(
        "w_out", "output projection W_o (heads x d_v, d_out)", 0, 0,
        io::every_row(a.layer.heads * a.layer.d_v), io::index_labels(a.layer.d_out),
        {io::index_label("in")},
        io::held_rows<T>([&w = *a.par.out](std::size_t, std::size_t) { return w.data(); },
                         a.layer.d_out));
}

// Q, K or V (kProjections' row `which`) of every batch element and head.
template <class T>
io::MatrixStream projected_stream(const SentenceArrays<T>& a, std::size_t which) {
    const Projection<T>& p = kProjections<T>[which];
    const auto& res = a.run.results;
    const std::size_t d = a.layer.*p.width;
    auto pick = [&res, rows = p.rows](std::size_t b, std::size_t h) {
        return (res[b].*rows)[h].data();
    };
    return sentence_stack(a, p.name, p.title, true, p.queried, d, io::held_rows<T>(pick, d));
}

// One of the n x n arrays of the layer (ScoreRows' field), ([b,] [H,] queries, n): rows by
// query, columns by key (the tokens), made by LayerResult::rows when the writer asks for them.
template <class T>
io::MatrixStream square_stack(const SentenceArrays<T>& a, std::string name, std::string title,
                              T* ScoreRows<T>::*field, io::StackPanels panels = {}) {
    const auto& res = a.run.results;
    const std::size_t n = a.s.n();
    io::MatrixStream e = sentence_stack(
        a, std::move(name), std::move(title), true, true, n,
        io::converted_rows<T>(
            [&res, field, n, progress = a.progress](std::size_t b, std::size_t h, std::size_t i,
                                                    std::size_t len, T* buf) {
                ScoreRows<T> sr;
                sr.*field = buf;
                sr.stride = n;
                res[b].rows->rows(h, i, len, sr);
                if (progress) progress->advance(len);
            },
            n),
        panels);
    if (a.progress) a.progress->add_total(e.info.rows());
    if (!a.s.tokens.empty()) e.info.column_labels = a.s.tokens;
    e.info.column_axis = "key";
    return e;
}

// The scores omega = Q K^T, or the weights softmax(omega / sqrt(d_k)), rows by query.
// Pictures: a panel per (sequence, head); weights on a fixed 0..1 scale so that pictures
// compare; the keys a mask hides are drawn as masked.
template <class T>
io::MatrixStream attention_stream(const SentenceArrays<T>& a, bool weights) {
    io::StackPanels panels{io::PanelTitles::varying_axes};
    const auto masks = std::make_shared<std::vector<MaskOptions>>(a.run.masks);
    if (weights && std::any_of(masks->begin(), masks->end(),
                               [](const MaskOptions& m) { return masks_any(m); }))
        panels.masked = [masks](std::size_t b, std::size_t, std::size_t i, std::size_t j) {
            return masked((*masks)[std::min(b, masks->size() - 1)], i, j);
        };
    io::MatrixStream e =
        square_stack(a, weights ? "weights" : "scores",
                     weights ? "attention weights softmax(omega / sqrt(d_k))" + a.mask_text
                             : "unnormalized attention scores omega = Q K^T",
                     weights ? &ScoreRows<T>::weights : &ScoreRows<T>::raw, panels);
    e.info.row_axis = "query";
    if (weights) e.info.value_range = std::pair{0.0, 1.0};
    return e;
}

// The scaled scores (omega / sqrt(d_k) + position bias), or the same after the masks.
template <class T>
io::MatrixStream scaled_stream(const SentenceArrays<T>& a, bool masked) {
    const std::string scale = a.run.scale ? "omega" : "omega / sqrt(d_k)";
    const std::string bias = a.run.scheme.biases() ? " + " + a.run.scheme.description() : "";
    return square_stack(
        a, masked ? "masked_scores" : "scaled_scores",
        masked ? "masked scores (" + scale + bias + ", masked entries " +
                     (a.run.masks.front().fill ? fmt::format("{}", *a.run.masks.front().fill)
                                               : "-inf") +
                     ")" + a.mask_text
               : "scaled scores " + scale + bias + ", before masks",
        masked ? &ScoreRows<T>::masked : &ScoreRows<T>::scores);
}

// What the scheme contributes: P (n, d_in), rope's angles (n, d_k / 2), or the bias per head.
template <class T>
io::MatrixStream positions_stream(const SentenceArrays<T>& a) {
    const positions::PositionScheme<T>& scheme = a.run.scheme;
    const std::vector<std::size_t> shape = scheme.positions_shape();
    const bool bias = scheme.biases();  // (n_heads, n, n)
    const std::size_t n = a.s.n(), cols = shape.back();
    io::MatrixStream e = io::matrix_stack(
        "positions", scheme.description(), 0, bias ? head_axis(a) : 0, io::every_row(n),
        io::index_labels(cols), {io::index_label("position")},
        io::converted_rows<T>(
            [&scheme, n](std::size_t, std::size_t h, std::size_t i, std::size_t len, T* buf) {
                scheme.positions_rows(h * n + i, len, buf);
            },
            cols));
    if (bias) e.info.column_axis = "key";
    return e;
}

// context(X[p]) - context(X)[p], per batch element. Pictures draw its rounding noise as 0
// (io::rounding_noise of attn::equivariance_bound).
template <class T>
io::MatrixStream equivariance_stream(const SentenceArrays<T>& a) {
    const auto& eq = a.run.equivariance;
    const std::string scheme = a.run.scheme.description();
    io::MatrixStream e =
        sentence_stack(a, "equivariance",
                       "equivariance context(X[p]) - context(X)[p]" +
                           (scheme.empty() ? std::string() : ", " + scheme) + a.mask_text,
                       false, true, eq.front().shape(1),
                       io::held_rows<T>([&eq](std::size_t b, std::size_t) { return eq[b].data(); },
                                        eq.front().shape(1)));
    const SumBound bound = equivariance_bound(a.run);
    e.info.noise = io::rounding_noise(
        bound.magnitude, std::is_same_v<T, float> ? io::Dtype::float32 : io::Dtype::float64,
        bound.terms);
    return e;
}

template <class T>
io::MatrixStream context_stream(const SentenceArrays<T>& a) {
    const std::size_t H = a.layer.heads;
    const std::string title =
        a.layer.output ? fmt::format("output [z_0 | ... | z_{}] W_o", H - 1)
        : H > 1 ? fmt::format("context vectors [z_0 | ... | z_{}] (heads concatenated)", H - 1)
                : std::string("context vectors z = weights V");
    const auto& res = a.run.results;
    const std::size_t cols = res.front().output.shape(1);
    return sentence_stack(
        a, "context", title + a.mask_text, false, true, cols,
        io::held_rows<T>([&res](std::size_t b, std::size_t) { return res[b].output.data(); },
                         cols));
}

// Each batch element's one layer reduced by model::AttentionSummaries (as --model's layers).
template <class T>
std::shared_ptr<std::vector<model::AttentionSummaries>> summaries(const SentenceArrays<T>& a) {
    if (a.run.summaries) return a.run.summaries;
    return a.run.summaries = std::make_shared<std::vector<model::AttentionSummaries>>(
               model::summarise_each(a.run.results, a.s.n(), {true, true, true, true}));
}

// head_stats: a row per (sequence, head): [sequence,] layer, head, then HeadStats::kNames.
template <class T>
io::MatrixStream head_stats_stream(const SentenceArrays<T>& a) {
    const auto sums = summaries(a);
    const std::size_t H = a.layer.heads;
    return cli::head_stats_stream(
        sums->size() * H, [sums, H](std::size_t r) { return (*sums)[r / H].head_stats()[r % H]; },
        a.s.batch > 0 ? H : 0,
        "per head: entropy (nats), mean distance, weight on the first, previous and own position",
        a.binary);
}

// offsets ([b,] H, 2n-1), mean_weights or rollout ([b,] n, n): the batch element's one layer.
template <class T>
io::MatrixStream summary_stream(const SentenceArrays<T>& a, SummaryArray which) {
    const auto sums = summaries(a);
    const char* titles[] = {"mean weight by offset j - i, from -(n-1) to n-1",
                            "attention weights, mean over the heads",
                            "attention rollout: rows of 0.5 mean_weights + 0.5 I renormalised"};
    return summary_array_stream(which, titles[static_cast<int>(which)] + a.mask_text,
                                io::index_axis("batch", a.s.batch),
                                io::index_label(which == SummaryArray::offsets ? "head" : "query"),
                                a.layer.heads, a.s.n(), [sums](std::size_t b) {
                                    return std::pair{&(*sums)[b], std::size_t{0}};
                                });
}

}  // namespace

template <class T>
const ShowTable<Show, SentenceArrays<T>>& attend_show_table() {
    using A = const SentenceArrays<T>&;
    using S = Show;
    static const ShowTable<Show, SentenceArrays<T>> table = run_show_table<SentenceArrays<T>>(
        AttendRun::random,
        {{S::vocabulary, [](A a) { return vocabulary_stream(a); }},
         {S::tokens, [](A a) { return ids_stream(a, true); }},
         {S::ids, [](A a) { return ids_stream(a, false); }},
         {S::embeddings, [](A a) { return embeddings_stream(a); }},
         {S::queries, [](A a) { return projected_stream(a, 0); }},
         {S::keys, [](A a) { return projected_stream(a, 1); }},
         {S::values, [](A a) { return projected_stream(a, 2); }},
         {S::positions, [](A a) { return positions_stream(a); }},
         {S::scores, [](A a) { return attention_stream(a, false); }},
         {S::scaled_scores, [](A a) { return scaled_stream(a, false); }},
         {S::masked_scores, [](A a) { return scaled_stream(a, true); }},
         {S::weights, [](A a) { return attention_stream(a, true); }},
         {S::context, [](A a) { return context_stream(a); }},
         {S::equivariance, [](A a) { return equivariance_stream(a); }},
         {S::w_query, [](A a) { return weight_stream(a, 0); }},
         {S::w_key, [](A a) { return weight_stream(a, 1); }},
         {S::w_value, [](A a) { return weight_stream(a, 2); }},
         {S::w_out, [](A a) { return out_weight_stream(a); }},
         {S::head_stats, [](A a) { return head_stats_stream(a); }},
         {S::offsets, [](A a) { return summary_stream(a, SummaryArray::offsets); }},
         {S::mean_weights, [](A a) { return summary_stream(a, SummaryArray::mean_weights); }},
         {S::rollout, [](A a) { return summary_stream(a, SummaryArray::rollout); }}});
    return table;
}

template const ShowTable<Show, SentenceArrays<float>>& attend_show_table<float>();
template const ShowTable<Show, SentenceArrays<double>>& attend_show_table<double>();

std::vector<Show> parse_show(const std::string& list, unsigned have) {
    static const std::vector<ShowNeed> reasons{
        {need::tokens, "--input rows have positions, not tokens"},
        {need::scheme, "--scheme none adds no positions; give --scheme"},
        {need::permute, "compares against a permuted input; give --permute"},
        {need::out_proj, "there is no output projection without --out-proj or --wo"},
        {need::projections, "--no-projection attends over X itself, without W"}};
    return parse_show_list(attend_show_table<float>(), list, have, reasons);
}

}  // namespace attn::cli
