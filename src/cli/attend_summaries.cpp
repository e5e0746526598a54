#include "cli/attend_summaries.hpp"

#include <fmt/format.h>

#include <memory>
#include <tuple>

#include "attn/model/summaries.hpp"
#include "io/matrix_stack.hpp"

namespace attn::cli {

namespace {

// One AttentionSummaries per sequence of the batch, each of the layer's H heads added whole
// (rows from LayerResult::rows, so both attention paths give them).
template <class T>
std::shared_ptr<std::vector<model::AttentionSummaries>> reduce(const SentenceArrays<T>& a) {
    const auto& res = a.run.results;
    const std::size_t n = a.s.n(), H = a.dims.heads;
    auto out = std::make_shared<std::vector<model::AttentionSummaries>>();
    std::vector<T> w(n * n);
    for (const auto& r : res) {
        out->emplace_back(n, model::SummaryChoice{true, true, true, true});
        for (std::size_t h = 0; h < H; ++h) {
            ScoreRows<T> sr;
            sr.weights = w.data();
            sr.stride = n;
            r.rows->rows(h, 0, n, sr);
            out->back().add_head(0, h, std::span<const T>(w));
        }
        out->back().end_layer();
    }
    return out;
}

}  // namespace

template <class T>
io::MatrixStream attend_summary_stream(const SentenceArrays<T>& a, Show which) {
    const auto sums = reduce(a);
    const std::size_t n = a.s.n(), H = a.dims.heads, B = std::max<std::size_t>(a.s.batch, 1);
    if (which == Show::head_stats) {
        using Field = double model::HeadStats::*;
        auto row = [sums, H](std::size_t r) -> const model::HeadStats& {
            return (*sums)[r / H].head_stats()[r % H];
        };
        std::vector<io::TableColumn> cols;
        if (a.s.batch > 0)
            cols.push_back({"sequence", true, [H](std::size_t r) { return std::to_string(r / H); },
                            [H](std::size_t r) { return double(r / H); }});
        cols.push_back({"layer", true, [](std::size_t) { return std::string("0"); },
                        [](std::size_t) { return 0.0; }});
        cols.push_back({"head", true, [row](std::size_t r) { return std::to_string(row(r).head); },
                        [row](std::size_t r) { return double(row(r).head); }});
        const std::pair<const char*, Field> fields[] = {{"entropy", &model::HeadStats::entropy},
                                                        {"distance", &model::HeadStats::distance},
                                                        {"first", &model::HeadStats::first},
                                                        {"previous", &model::HeadStats::previous},
                                                        {"self", &model::HeadStats::self}};
        for (const auto& [name, f] : fields)
            cols.push_back({name, true,
                            [row, f = f](std::size_t r) { return fmt::format("{}", row(r).*f); },
                            [row, f = f](std::size_t r) { return row(r).*f; }});
        io::MatrixStream s = io::table_stream("head_stats",
                                              "per head: entropy (nats), mean distance, weight on "
                                              "the first, previous and own position",
                                              B * H, std::move(cols), a.binary);
        s.info.scatter = io::ArrayInfo::Scatter{"distance",
                                                "entropy",
                                                "mean distance sum_j w_ij |i - j| (tokens)",
                                                "entropy (nats)",
                                                {"layer", "head"},
                                                "previous",
                                                "weight on the previous token > 0.5"};
        return s;
    }
    std::vector<std::string> columns = io::index_labels(n);
    std::size_t cols = n;
    std::string title;
    const std::vector<double>* (*pick)(const model::AttentionSummaries&) = nullptr;
    if (which == Show::offsets) {
        columns.clear();
        for (std::size_t o = 0; o < 2 * n - 1; ++o)
            columns.push_back(
                std::to_string(static_cast<long long>(o) - static_cast<long long>(n - 1)));
        cols = 2 * n - 1;
        title = "mean weight by offset j - i, from -(n-1) to n-1";
        pick = [](const model::AttentionSummaries& m) { return &m.offsets(); };
    } else if (which == Show::mean_weights) {
        title = "attention weights, mean over the heads";
        pick = [](const model::AttentionSummaries& m) { return &m.mean_weights(); };
    } else {
        title = "attention rollout: rows of 0.5 mean_weights + 0.5 I renormalised";
        pick = [](const model::AttentionSummaries& m) { return &m.rollout(); };
    }
    // offsets: a row per head; the n x n summaries: a row per query. v is that array of one
    // sequence, row-major.
    const std::size_t rows = which == Show::offsets ? H : n;
    const char* label = which == Show::offsets ? "head" : "query";
    io::MatrixStream s = io::matrix_stack(
        which == Show::offsets        ? "offsets"
        : which == Show::mean_weights ? "mean_weights"
                                      : "rollout",
        title + a.mask_text, a.s.batch, 0, io::every_row(rows), columns,
        {{label, [](std::size_t i) { return std::to_string(i); }}},
        [sums, pick, cols](std::size_t b, std::size_t, std::size_t i, std::size_t len,
                           double* out) {
            const std::vector<double>& v = *pick((*sums)[b]);
            std::copy_n(v.begin() + static_cast<std::ptrdiff_t>(i * cols), len * cols, out);
        });
    if (which == Show::offsets) {
        s.info.row_curves = true;
        s.info.column_axis = "offset j - i (key minus query)";
        s.info.value_axis = "mean weight";
    }
    return s;
}

template <class T>
ShowTable<Show, SentenceArrays<T>> with_summaries(ShowTable<Show, SentenceArrays<T>> table) {
    using A = const SentenceArrays<T>&;
    const std::tuple<Show, const char*, const char*, const char*> rows[] = {
        {Show::head_stats, "head_stats", "([b] H, 7)",
         "per head: entropy, mean distance, weight on the first, previous and own position"},
        {Show::offsets, "offsets", "([b,] H, 2n-1)", "mean weight at each offset j - i"},
        {Show::mean_weights, "mean_weights", "([b,] n, n)", "weights, mean over the heads"},
        {Show::rollout, "rollout", "([b,] n, n)", "rows of 0.5 mean_weights + 0.5 I, normalised"}};
    for (const auto& [item, name, shape, help] : rows)
        table.push_back({item, name, shape, help,
                         [item = item](A a) { return attend_summary_stream(a, item); }, 0, false});
    return table;
}

template ShowTable<Show, SentenceArrays<float>> with_summaries(
    ShowTable<Show, SentenceArrays<float>>);
template ShowTable<Show, SentenceArrays<double>> with_summaries(
    ShowTable<Show, SentenceArrays<double>>);
template io::MatrixStream attend_summary_stream(const SentenceArrays<float>&, Show);
template io::MatrixStream attend_summary_stream(const SentenceArrays<double>&, Show);

}  // namespace attn::cli
