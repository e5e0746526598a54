// attn encode --model M: the positions of a real checkpoint, by the kind its family has
// (model::Positions): learned, P, rows of the family's position table; RoPE, the arrays of
// --scheme rope with the config's head_dim, rope_theta and rope_scaling; ALiBi, the arrays of
// --scheme alibi with its heads; relative buckets, buckets and bias (H x n x n, layer 0's table
// looked up by bucket). Options the config fixes are refused.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "attn/model/tensors.hpp"
#include "attn/positions/t5.hpp"
#include "cli/encode_arrays.hpp"
#include "cli/encode_options.hpp"
#include "cli/errors.hpp"
#include "cli/exit_code.hpp"
#include "cli/show_table.hpp"
#include "io/matrix_stream.hpp"
#include "io/output_file.hpp"

namespace attn::cli {

namespace {

// Options of the random encodings: the config already says what they would.
constexpr const char* kFixed[] = {"--scheme",
                                  "--dim",
                                  "--base",
                                  "--layout",
                                  "--angles",
                                  "--add",
                                  "--columns",
                                  "--rope-scaling",
                                  "--factor",
                                  "--original-max-positions",
                                  "--low-freq-factor",
                                  "--high-freq-factor",
                                  "--beta-fast",
                                  "--beta-slow",
                                  "--heads",
                                  "--buckets",
                                  "--max-distance",
                                  "--causal"};

std::vector<std::string> indices(std::size_t n) {
    std::vector<std::string> out(n);
    for (std::size_t j = 0; j < n; ++j) out[j] = std::to_string(j);
    return out;
}

/// The stored table of the checkpoint (model::position_table), mapped.
runtime::TensorView table_of_model(const OpenModel& m) {
    const model::TensorSpec table = model::position_table(m.config);
    return m.weights().tensor(table.names, table.shape);
}

// P: rows start .. start+n-1 of the learned table (max_positions x d), widened exactly.
io::MatrixStream learned_stream(const OpenModel& m, const EncodeOptions& opt, std::size_t n,
                                io::Dtype dtype) {
    const runtime::TensorView table = table_of_model(m);
    const std::size_t d = m.config.hidden_size;
    const auto start = static_cast<std::size_t>(opt.start);
    io::MatrixStream s;
    s.info.name = "P";
    s.info.title = fmt::format("{} learned positions, rows {}..{} of {}", m.config.model_type(),
                               start, start + n - 1, m.config.max_positions);
    s.info.shape = {n, d};
    s.info.dtype = dtype;
    s.info.column_labels = indices(d);
    s.info.column_axis = "Column (model width)";
    s.info.labels.push_back(
        {"position", [start](std::size_t r) { return std::to_string(start + r); }});
    s.produce = [table, start, d](std::size_t first, std::size_t count, double* out) {
        table.to_double({out, count * d}, (start + first) * d);
    };
    return s;
}

// bias[h, i, j] = table[bucket(j - i), h]: (H n) x n rows, head h = row / n, query i = row % n.
io::MatrixStream t5_bias_stream(const OpenModel& m, std::size_t n, io::Dtype dtype) {
    const runtime::TensorView table = table_of_model(m);  // (B, H)
    const std::size_t H = m.config.num_heads;
    auto values = std::make_shared<std::vector<double>>(table.numel());
    table.to_double(*values);
    const positions::T5Buckets t5 = m.config.t5;
    io::MatrixStream s;
    s.info.name = "bias";
    s.info.title =
        fmt::format("T5 learned relative bias of layer 0, {} heads, {} buckets", H, t5.num_buckets);
    s.info.shape = {H, n, n};
    s.info.dtype = dtype;
    s.info.column_labels = indices(n);
    s.info.labels.push_back({"head", [n](std::size_t r) { return std::to_string(r / n); }});
    s.info.labels.push_back({"query", [n](std::size_t r) { return std::to_string(r % n); }});
    s.info.row_axis = "query";
    s.info.column_axis = "key";
    s.info.panel_rows = n;
    for (std::size_t h = 0; h < H; ++h) s.info.panel_titles.push_back(fmt::format("head {}", h));
    s.produce = [values, t5, n, H](std::size_t first, std::size_t count, double* out) {
        for (std::size_t k = 0; k < count; ++k) {
            const std::size_t h = (first + k) / n, i = (first + k) % n;
            for (std::size_t j = 0; j < n; ++j) {
                const auto r = static_cast<std::int64_t>(j) - static_cast<std::int64_t>(i);
                const auto b = static_cast<std::size_t>(positions::t5_bucket(r, t5));
                out[k * n + j] = (*values)[b * H + h];
            }
        }
    };
    return s;
}

// What a model's arrays are made from: the checkpoint, and the checked options with n, the
// output dtype and, for t5, the config's buckets.
struct ModelRun {
    const OpenModel* model = nullptr;
    SchemeRun scheme;
};
using ModelTable = ShowTable<EncodeArray, ModelRun>;

const ModelTable& learned_table() {
    static const ModelTable table{
        {EncodeArray::P, "P", "(n, d)", "rows start .. start+n-1 of the learned table",
         [](const ModelRun& r) {
             return learned_stream(*r.model, *r.scheme.opt, r.scheme.n, r.scheme.dtype);
         }}};
    return table;
}

const ModelTable& t5_model_table() {
    static const ModelTable table{
        {EncodeArray::buckets, "buckets", "(n, n)", "the bucket of j - i, as --scheme t5's",
         [](const ModelRun& r) {
             return show_entry(table_of(Scheme::t5), EncodeArray::buckets).stream(r.scheme);
         }},
        {EncodeArray::bias, "bias", "(H, n, n)", "layer 0's learned bias by bucket (default)",
         [](const ModelRun& r) { return t5_bias_stream(*r.model, r.scheme.n, r.scheme.dtype); }}};
    return table;
}

/// A model's --show list as arrays (deflt when it names none); UsageError naming the model's
/// arrays, and its default when it has a choice ("buckets, bias (default), all").
std::vector<EncodeArray> parse_model_show(const ModelTable& table, EncodeArray deflt,
                                          const OpenModel& m, const EncodeOptions& opt) {
    if (opt.show.empty()) return {deflt};
    std::string names;
    for (const auto& e : table)
        names += e.name + (e.item == deflt && table.size() > 1 ? " (default)" : "") + ", ";
    const auto unknown = [&](const std::string& name) {
        return fmt::format("--show: '{}' is not an array of a {} model; it has {}all", name,
                           m.config.model_type(), names);
    };
    return parse_show_list(table, opt.show, 0, {}, unknown);
}

// The run every --show array of a model reads: its n rows in the output's dtype.
ModelRun model_run(const OpenModel& m, const EncodeOptions& opt, std::size_t n, io::Dtype dtype) {
    ModelRun run;
    run.model = &m;
    run.scheme.opt = &opt;
    run.scheme.n = n;
    run.scheme.dtype = dtype;
    return run;
}

int run_t5(const OpenModel& m, const EncodeOptions& opt, std::size_t n) {
    const ModelTable& table = t5_model_table();
    const std::vector<EncodeArray> show = parse_model_show(table, EncodeArray::bias, m, opt);
    const std::uint64_t bytes = runtime::checked_product({n, 64}, "--positions");
    runtime::reserve(bytes, fmt::format("--positions {} (rows of {} keys)", n, n));
    io::Output output(resolve_output(opt.out), show.size());
    ModelRun run = model_run(m, opt, n, output.dtype());
    run.scheme.t5 = m.config.t5;
    for (EncodeArray item : show) {
        io::DriveOptions drive;
        drive.block_rows =
            std::clamp<std::size_t>((std::size_t{1} << 18) / std::max<std::size_t>(n, 1), 1, 4096);
        io::drive(output.sink(), show_entry(table, item).stream(run), drive);
    }
    output.commit();
    return kOk;
}

int run_learned(const OpenModel& m, const EncodeOptions& opt, std::size_t n) {
    const ModelTable& table = learned_table();
    const std::vector<EncodeArray> show = parse_model_show(table, EncodeArray::P, m, opt);
    if (opt.start < 0 || static_cast<std::uint64_t>(opt.start) + n > m.config.max_positions)
        throw UsageError(
            fmt::format("-n/--start: rows {}..{} of the position table, which has rows 0..{} "
                        "({} max positions)",
                        opt.start, opt.start + static_cast<std::int64_t>(n) - 1,
                        m.config.max_positions - 1, m.config.max_positions));
    io::Output output(resolve_output(opt.out), show.size());
    const ModelRun run = model_run(m, opt, n, output.dtype());
    for (EncodeArray item : show) io::drive(output.sink(), show_entry(table, item).stream(run));
    output.commit();
    return kOk;
}

}  // namespace

void add_model_options(CLI::App& sub, EncodeOptions& opt) {
    const std::string group = "A real checkpoint (Hugging Face safetensors, never the network)";
    add_model_options(sub, opt.model);
    opt.model.model_opt->group(group);
    opt.model.revision_opt->group(group);
}

int run_encode_model(const EncodeOptions& opt) {
    if (opt.model.model.empty())
        throw UsageError("--revision: needs --model ORG/NAME, the model whose snapshot it picks");
    for (const char* option : kFixed)
        if (opt.typed(option))
            throw UsageError(fmt::format(
                "{}: the model's config.json fixes the positions; not used with --model", option));
    const auto n = static_cast<std::size_t>(opt.positions);
    if (n == 0) throw UsageError("--positions: 0; a model's positions need n >= 1");
    const std::uint64_t value_bytes = opt.out.dtype == io::Dtype::float64 ? 8 : 4;
    const OpenModel m = open_model(opt.model, n, value_bytes);
    const model::ModelConfig& c = m.config;
    if (!opt.apply.empty() && c.positions != positions::Scheme::rope)
        throw UsageError(
            fmt::format("--apply: rotates by RoPE; a {} model has no rotation", c.model_type()));
    if (opt.typed("--start") &&
        (c.positions == positions::Scheme::alibi || c.positions == positions::Scheme::t5))
        throw UsageError(
            fmt::format("--start: a {} model's bias depends on i - j only", c.model_type()));
    if (c.positions == positions::Scheme::none) return run_learned(m, opt, n);
    if (c.positions == positions::Scheme::t5) return run_t5(m, opt, n);
    // rope and alibi: the arrays of --scheme rope|alibi with the config's parameters.
    EncodeOptions scheme = opt;
    scheme.given.push_back("--dim");  // --apply's X must be head_dim wide
    if (c.positions == positions::Scheme::rope) {
        scheme.scheme = Scheme::rope;
        scheme.dim = static_cast<std::int64_t>(c.rope.d);  // the rotated width
        scheme.base = c.rope.base;
        scheme.scaling = c.rope.scaling;
        scheme.factor = c.rope.factor;
        scheme.original_max_positions = c.rope.original_max_position_embeddings;
        scheme.low_freq_factor = c.rope.low_freq_factor;
        scheme.high_freq_factor = c.rope.high_freq_factor;
        scheme.beta_fast = c.rope.beta_fast;
        scheme.beta_slow = c.rope.beta_slow;
        scheme.model_rope = c.rope;  // and attention_factor, mscale, longrope's lists
    } else {
        scheme.scheme = Scheme::alibi;
        scheme.heads = static_cast<std::int64_t>(c.num_heads);
    }
    return run_scheme(scheme);
}

}  // namespace attn::cli
