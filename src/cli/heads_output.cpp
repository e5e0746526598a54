// attn heads' scores in every format: one row per (layer, head), columns
// layer,head,previous,duplicate,induction,sink,self,entropy,offset,positional,type.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <memory>

#include "cli/errors.hpp"
#include "cli/heads.hpp"
#include "io/category_grid.hpp"
#include "io/held_array.hpp"
#include "io/json.hpp"
#include "io/matrix_stream.hpp"
#include "io/number_format.hpp"
#include "io/png.hpp"

namespace attn::cli {

namespace {

constexpr std::array<const char*, 11> kColumns{"layer",     "head",       "previous", "duplicate",
                                               "induction", "sink",       "self",     "entropy",
                                               "offset",    "positional", "type"};
constexpr std::array<const char*, 6> kTypes{"previous", "duplicate", "induction",
                                            "sink",     "self",      "positional"};

struct Table {
    std::vector<std::size_t> layer, head;
    std::vector<model::HeadScores> scores;
    double sink_rate = 0;

    /// Column c (2 .. 9) of row r as a number.
    double number(std::size_t r, std::size_t c) const {
        const model::HeadScores& s = scores[r];
        switch (c) {
            case 0:
                return static_cast<double>(layer[r]);
            case 1:
                return static_cast<double>(head[r]);
            case 2:
            case 3:
            case 4:
                return s.pattern[c - 2];
            case 5:
                return s.sink;
            case 6:
                return s.self;
            case 7:
                return s.entropy;
            case 8:
                return static_cast<double>(s.offset);
            default:
                return s.positional;
        }
    }
};

Table table_of(const HeadsRun& run) {
    Table t;
    for (std::size_t k = 0; k < run.layers.size(); ++k)
        for (std::size_t h = 0; h < run.heads.size(); ++h) {
            t.layer.push_back(run.layers[k]);
            t.head.push_back(run.heads[h]);
            t.scores.push_back(model::head_scores(run.sums[k * run.heads.size() + h], run.measure));
        }
    t.sink_rate = model::sink_rate(t.scores);
    return t;
}

bool integer_column(std::size_t c) {
    return c == 0 || c == 1 || c == 8;
}

std::string number_text(double v, bool integer, const io::OutputSpec& spec) {
    if (std::isnan(v)) return "nan";
    fmt::memory_buffer b;
    io::append_number(b, v, integer ? io::Dtype::int64 : io::Dtype::float64, spec.style.precision);
    return fmt::to_string(b);
}

std::string json_number(double v, bool integer, const io::OutputSpec& spec) {
    return std::isfinite(v) ? number_text(v, integer, spec) : "null";
}

std::string prompt_text(const std::vector<std::int64_t>& ids) {
    return fmt::format("{}", fmt::join(ids, " "));
}

void write_json(const Table& t, const HeadsRun& run, const io::OutputSpec& spec) {
    std::string out = "{\"columns\": [";
    for (std::size_t c = 0; c < kColumns.size(); ++c)
        out += fmt::format("{}\"{}\"", c ? ", " : "", kColumns[c]);
    out += "],\n \"data\": [";
    for (std::size_t r = 0; r < t.scores.size(); ++r) {
        out += r ? ",\n  [" : "\n  [";
        for (std::size_t c = 0; c + 1 < kColumns.size(); ++c)
            out += (c ? ", " : "") + json_number(t.number(r, c), integer_column(c), spec);
        out += ", " + io::json_string(t.scores[r].type) + "]";
    }
    out += "],\n \"prompts\": [";
    for (std::size_t p = 0; p < run.prompts.size(); ++p)
        out += fmt::format("{}[{}]", p ? ", " : "", fmt::join(run.prompts[p], ", "));
    out += "],\n \"sink_rate\": " + json_number(t.sink_rate, false, spec) + "}\n";
    io::OutputFile file(spec.path);
    file.write(out);
    file.commit();
}

void write_picture(const Table& t, const HeadsRun& run, const io::OutputSpec& spec) {
    io::CategoryGrid g;
    g.title = spec.style.picture.title.value_or(
        fmt::format("What each head does ({} prompt{}, measure {})", run.prompts.size(),
                    run.prompts.size() == 1 ? "" : "s",
                    run.measure == model::Measure::rows  ? "rows"
                    : run.measure == model::Measure::mul ? "mul"
                                                         : "abs"));
    g.row_axis = "layer";
    g.column_axis = "head";
    for (const std::size_t l : run.layers) g.row_labels.push_back(std::to_string(l));
    for (const std::size_t h : run.heads) g.column_labels.push_back(std::to_string(h));
    g.categories.assign(kTypes.begin(), kTypes.end());
    g.categories.push_back("");
    for (std::size_t r = 0; r < t.scores.size(); ++r) {
        const model::HeadScores& s = t.scores[r];
        // the cell's number: the score that named its type (none: the largest of the five)
        std::size_t k = 0;
        while (k < kTypes.size() && s.type != kTypes[k]) ++k;
        const std::array<double, 6> v{s.pattern[0], s.pattern[1], s.pattern[2],
                                      s.sink,       s.self,       s.positional};
        double shown = k < kTypes.size() ? v[k] : NAN;
        if (k == kTypes.size())
            for (std::size_t j = 0; j < 5; ++j)
                if (!std::isnan(v[j]) && !(v[j] <= shown)) shown = v[j];
        g.cell_category.push_back(k);
        g.cell_text.push_back(std::isnan(shown) ? "" : fmt::format("{:.2f}", shown));
    }
    std::string svg =
        io::category_grid_svg(g, spec.style.picture.size, spec.style.picture.font_scale);
    io::OutputFile file(spec.path);
    file.write(spec.format == io::Format::png ? io::render_png(svg) : svg);
    file.commit();
}

/// The scores as a table of text columns (csv, tsv, md, table).
io::MatrixStream scores_text(const Table& t, const io::OutputSpec& spec) {
    auto shared = std::make_shared<Table>(t);
    std::vector<io::TableColumn> columns;
    for (std::size_t c = 0; c < kColumns.size(); ++c) {
        io::TableColumn col;
        col.name = kColumns[c];
        col.numeric = c + 1 < kColumns.size();
        if (c + 1 < kColumns.size())
            col.text = [shared, c, spec](std::size_t r) {
                return number_text(shared->number(r, c), integer_column(c), spec);
            };
        else
            col.text = [shared](std::size_t r) { return shared->scores[r].type; };
        columns.push_back(std::move(col));
    }
    return io::table_stream("heads", "What each head does", t.scores.size(), std::move(columns),
                            false);
}

std::vector<io::MatrixStream> npz_arrays(const Table& t, const HeadsRun& run, bool prompts) {
    std::vector<io::MatrixStream> out;
    for (std::size_t c = 0; c + 1 < kColumns.size(); ++c) {
        std::vector<double> v;
        for (std::size_t r = 0; r < t.scores.size(); ++r) v.push_back(t.number(r, c));
        const std::size_t rows = v.size();
        out.push_back(io::held_array(kColumns[c], {rows}, std::move(v),
                                     integer_column(c) ? io::Dtype::int64 : io::Dtype::float64));
    }
    std::vector<std::string> names;
    for (const auto& s : t.scores) names.push_back(s.type);
    out.push_back(io::held_strings("type", std::move(names)));
    out.push_back(io::held_array("sink_rate", {1}, {t.sink_rate}));
    bool same = !run.prompts.empty();
    for (const auto& p : run.prompts) same = same && p.size() == run.prompts.front().size();
    if (prompts && same) {  // (prompts, n) int64
        std::vector<double> ids;
        for (const auto& p : run.prompts) ids.insert(ids.end(), p.begin(), p.end());
        out.push_back(io::held_array("prompts", {run.prompts.size(), run.prompts.front().size()},
                                     std::move(ids), io::Dtype::int64));
    }
    return out;
}

}  // namespace

void check_head_table_output(const io::OutputSpec& spec, std::string_view command) {
    switch (spec.format) {
        case io::Format::json:
        case io::Format::svg:
        case io::Format::png:
            if (spec.directory)
                throw UsageError(fmt::format("-o: {} writes {} to one file, not a directory",
                                             command, io::format_name(spec.format)));
            break;
        case io::Format::heatmap:
        case io::Format::html:
        case io::Format::npy:
            throw UsageError(
                fmt::format("-f: {} writes csv, tsv, table, md, json, npz, svg or png, not {}",
                            command, io::format_name(spec.format)));
        default:
            break;
    }
}

void check_heads_output(const HeadsShow& show, const io::OutputSpec& spec) {
    if ((spec.format == io::Format::svg || spec.format == io::Format::png) &&
        (show.prompts || !show.scores))
        throw UsageError(fmt::format(
            "--show: {} draws the layers x heads grid of the scores; prompts is a table (csv, "
            "tsv, table, md; json and npz hold it)",
            io::format_name(spec.format)));
    check_head_table_output(spec, "heads");
}

void write_heads(const HeadsRun& run, const HeadsShow& show, const io::OutputSpec& spec) {
    check_heads_output(show, spec);
    const Table t = table_of(run);
    if (spec.format == io::Format::json) return write_json(t, run, spec);
    if (spec.format == io::Format::svg || spec.format == io::Format::png)
        return write_picture(t, run, spec);
    std::vector<io::MatrixStream> streams;
    if (spec.format == io::Format::npz) {
        streams = npz_arrays(t, run, true);
    } else {
        if (show.scores) streams.push_back(scores_text(t, spec));
        if (show.scores && spec.format == io::Format::table) {
            std::vector<io::TableColumn> rate(1);
            rate[0].name = "sink_rate";
            rate[0].numeric = true;
            const std::string text = number_text(t.sink_rate, false, spec);
            rate[0].text = [text](std::size_t) { return text; };
            streams.push_back(io::table_stream(
                "sink_rate", "Sink rate: percent of the heads with sink > 0.3", 1, rate, false));
        }
        if (show.prompts) {
            auto prompts = std::make_shared<std::vector<std::vector<std::int64_t>>>(run.prompts);
            std::vector<io::TableColumn> cols(3);
            cols[0] = {"prompt", true, [](std::size_t r) { return std::to_string(r); }, {}};
            cols[1] = {"length",
                       true,
                       [prompts](std::size_t r) { return std::to_string((*prompts)[r].size()); },
                       {}};
            cols[2] = {
                "ids", false, [prompts](std::size_t r) { return prompt_text((*prompts)[r]); }, {}};
            streams.push_back(io::table_stream("prompts", "The prompts' token ids",
                                               run.prompts.size(), std::move(cols), false));
        }
    }
    io::Output output(spec, streams.size());
    io::drive(output.sink(), streams);
    output.commit();
}

}  // namespace attn::cli
