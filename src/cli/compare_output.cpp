// attn compare's tables in every format: weights (layer,head,js,top1,max_abs), hidden
// (layer,hidden), next (kl,top1); npz one array per column as attn heads writes its table; svg
// and png the layers x heads grid of js drawn as a heatmap.
#include <fmt/format.h>

#include <memory>

#include "cli/arguments.hpp"
#include "cli/compare.hpp"
#include "cli/errors.hpp"
#include "cli/heads.hpp"
#include "io/format.hpp"
#include "io/matrix_stack.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

namespace {

/// A column of `rows` numbers: value(r), stored as dtype (int64 or float64).
io::TableColumn number_column(std::string name, std::function<double(std::size_t)> value,
                              io::Dtype dtype = io::Dtype::float64) {
    io::TableColumn c;
    c.name = std::move(name);
    c.numeric = true;
    c.value = std::move(value);
    c.dtype = dtype;
    return c;
}

/// One 1-D array of the column's values (npz), named `name`.
io::MatrixStream column_array(const std::string& name, const io::TableColumn& c, std::size_t rows) {
    io::MatrixStream s;
    s.info.name = name;
    s.info.title = name;
    s.info.shape = {rows};
    s.info.dtype = c.dtype;
    s.produce = [value = c.value, rows](std::size_t, std::size_t, double* out) {
        for (std::size_t r = 0; r < rows; ++r) out[r] = value(r);
    };
    return s;
}

struct Table {
    std::string name, title;
    std::size_t rows = 0;
    std::vector<io::TableColumn> columns;
};

std::vector<Table> tables(std::shared_ptr<const CompareResult> r, const CompareShow& show) {
    std::vector<Table> out;
    const auto I = io::Dtype::int64;
    if (show.weights) {
        const std::size_t H = r->runs.heads;
        out.push_back(
            {"weights",
             "How far B's attention weights are from A's, per head",
             r->runs.layers * H,
             {number_column(
                  "layer", [H](std::size_t k) { return double(k / H); }, I),
              number_column(
                  "head", [H](std::size_t k) { return double(k % H); }, I),
              number_column("js", [r](std::size_t k) { return r->runs.weights[k].js(); }),
              number_column("top1", [r](std::size_t k) { return r->runs.weights[k].top1(); }),
              number_column("max_abs",
                            [r](std::size_t k) { return r->runs.weights[k].max_abs; })}});
    }
    if (show.hidden)
        out.push_back(
            {"hidden",
             "max |h_A - h_B| / max |h_A| of the residual stream after each layer",
             r->runs.layers,
             {number_column(
                  "layer", [](std::size_t k) { return double(k); }, I),
              number_column("hidden", [r](std::size_t k) { return r->runs.hidden[k]; })}});
    if (show.next) {
        const double prompts = static_cast<double>(r->runs.prompts);
        out.push_back({"next",
                       "KL(A || B) of the next-token distributions, and whether the top-1 agrees",
                       1,
                       {number_column("kl", [r](std::size_t) { return r->runs.next_kl(); }),
                        number_column("top1", [r, prompts](std::size_t) {
                            return static_cast<double>(r->runs.next_same) / prompts;
                        })}});
    }
    return out;
}

io::MatrixStream js_grid(std::shared_ptr<const CompareResult> r, const io::OutputSpec& spec) {
    const std::size_t H = r->runs.heads;
    io::MatrixStream s = io::matrix_stack(
        "js", "js", {}, {}, io::every_row(r->runs.layers), io::index_labels(H),
        {io::index_label("layer", true)},
        [r, H](std::size_t, std::size_t, std::size_t i, std::size_t len, double* out) {
            for (std::size_t l = i; l < i + len; ++l)
                for (std::size_t h = 0; h < H; ++h) *out++ = r->runs.weights[l * H + h].js();
        });
    s.info.title = spec.style.picture.title.value_or(fmt::format(
        "Jensen-Shannon divergence of the attention weights (nats), {}{}", r->title,
        r->runs.prompts > 1 ? fmt::format(", mean of {} prompts", r->runs.prompts) : ""));
    s.info.column_axis = "head";
    s.info.row_axis = "layer";
    return s;
}

}  // namespace

CompareShow parse_compare_show(const std::string& text) {
    CompareShow show;
    for (const std::string& item : split_list(text)) {
        if (item == "weights")
            show.weights = true;
        else if (item == "hidden")
            show.hidden = true;
        else if (item == "next")
            show.next = true;
        else
            throw UsageError(fmt::format(
                "--show: '{}' is not an array of compare (weights, hidden, next)", item));
    }
    if (!show.weights && !show.hidden && !show.next)
        throw UsageError("--show: name weights, hidden or next");
    return show;
}

void check_compare_output(const CompareShow& show, const io::OutputSpec& spec) {
    const bool picture = spec.format == io::Format::svg || spec.format == io::Format::png;
    if (picture && (show.hidden || show.next || !show.weights))
        throw UsageError(
            fmt::format("--show: {} draws the layers x heads grid of js (weights); hidden and "
                        "next are tables",
                        io::format_name(spec.format)));
    check_head_table_output(spec, "compare");
}

void write_compare(const CompareResult& result, const CompareShow& show,
                   const io::OutputSpec& spec) {
    check_compare_output(show, spec);
    auto r = std::make_shared<const CompareResult>(result);
    std::vector<io::MatrixStream> streams;
    if (spec.format == io::Format::svg || spec.format == io::Format::png) {
        streams.push_back(js_grid(r, spec));
    } else {
        for (Table& t : tables(r, show)) {
            if (spec.format != io::Format::npz) {
                streams.push_back(io::table_stream(t.name, t.title, t.rows, t.columns, false));
                continue;
            }
            for (const io::TableColumn& c : t.columns)
                streams.push_back(column_array(
                    t.name == "weights" || c.name == t.name ? c.name : t.name + "_" + c.name, c,
                    t.rows));
        }
    }
    io::Output output(spec, streams.size());
    io::drive(output.sink(), streams);
    output.commit();
}

}  // namespace attn::cli
