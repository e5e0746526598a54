// attn attend --model M --prompts FILE: the model and its tokenizer opened once, then each
// prompt read (cli/prompts.hpp), run as its own sequence and summarised in turn; only the
// pooled head_stats and offsets (attn/pooled_summaries.hpp) are written. Memory: one prompt's
// forward a thread, a few prompts' summaries and the pooled sums, whatever the number of
// prompts.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/model/run.hpp"
#include "attn/model/tensors.hpp"
#include "attn/pooled_summaries.hpp"
#include "cli/attend_model.hpp"
#include "cli/errors.hpp"
#include "cli/exit_code.hpp"
#include "cli/prompts.hpp"
#include "cli/tokenizer_files.hpp"
#include "io/format_columns.hpp"
#include "runtime/memory_budget.hpp"
#include "runtime/ordered_pipeline.hpp"

namespace attn::cli {

namespace {

/// The arrays of --show (default head_stats): head_stats and offsets; any other is one
/// prompt's, refused naming it.
ModelArrays prompts_show(const std::string& show, const model::ModelConfig& c) {
    ModelArrays arrays = parse_model_show(show.empty() ? "head_stats" : show, c);
    for (const Show item : arrays.shown) {
        if (item == Show::head_stats || item == Show::offsets) continue;
        const auto& all = attend_arrays();
        const auto it = std::find_if(all.begin(), all.end(),
                                     [item](const AttendArray& a) { return a.item == item; });
        throw UsageError(fmt::format(
            "--show: '{}' is one prompt's array; --prompts writes head_stats and offsets over "
            "all the prompts: run one prompt (a TEXT or --ids) for '{}', or use a summary",
            it->name, it->name));
    }
    return arrays;
}

/// offsets pooled: layers x heads x (2N - 1), N the longest prompt, as one prompt's offsets.
io::MatrixStream pooled_offsets(const std::vector<std::size_t>& layers,
                                const std::vector<std::size_t>& heads, std::size_t longest,
                                std::shared_ptr<const std::vector<double>> values) {
    const std::size_t H = heads.size(), cols = 2 * longest - 1;
    io::MatrixStream s = io::matrix_stack(
        "offsets", "mean weight by offset j - i over every prompt's queries that have it",
        io::value_axis("layer", layers), {}, io::every_row(H), io::offset_labels(longest),
        {io::value_label("head", heads)},
        [values, H, cols](std::size_t k, std::size_t, std::size_t i, std::size_t len, double* out) {
            std::copy_n(values->begin() + static_cast<std::ptrdiff_t>((k * H + i) * cols),
                        len * cols, out);
        });
    s.info.row_curves = true;
    s.info.column_axis = "offset j - i (key minus query)";
    s.info.value_axis = "mean weight";
    return s;
}

/// One prompt's summaries, and where its first NaN or inf is.
struct PromptSummaries {
    model::AttentionSummaries summaries;
    std::optional<model::NonFinite> nonfinite;
    std::string where;  // the prompt's file and line
};

/// Every prompt read in order, its forward on one of prompt_workers's threads (OpenBLAS on one
/// thread whatever --threads: runtime/ordered_pipeline.hpp), pooled in file order: the pool is
/// the serial loop's, bit for bit, on any number of threads.
template <class T>
PooledSummaries run_all(OpenModel& m, PromptReader& reader, const std::vector<std::size_t>& layers,
                        const std::vector<std::size_t>& heads, model::SummaryChoice choice) {
    const model::ModelConfig& c = m.config;
    PooledSummaries pool;
    bool opened = false, warned = false;
    const auto take = [&]() -> std::optional<std::pair<std::vector<std::int64_t>, std::string>> {
        auto ids = reader.next();
        if (!ids) return std::nullopt;
        const std::uint64_t n = ids->size();
        if (!opened) {  // --max-memory, then every tensor checked, before the first forward
            open_weights(m, n, sizeof(T));
            opened = true;
        } else {  // each longer prompt's forward against --max-memory
            naming_option(reader.where(), [&] {
                runtime::reserve(model::forward_bytes(c, n, sizeof(T)),
                                 fmt::format("a forward of {} over {} tokens", c.model_type(), n));
            });
        }
        return std::pair{std::move(*ids), reader.where()};
    };
    const auto make = [&](std::pair<std::vector<std::int64_t>, std::string>& prompt) {
        model::ModelRun<T> run = naming_option(prompt.second, [&] {
            return model::ModelRun<T>(c, m.weights(), std::move(prompt.first), layers, heads,
                                      model::Keep{}, false);
        });
        run.summarise(choice);
        run.record(false, false);
        run.finish();
        return PromptSummaries{*run.summaries(), run.nonfinite(), std::move(prompt.second)};
    };
    runtime::ordered_pipeline(prompt_workers(m), take, make, [&](PromptSummaries&& p) {
        if (p.nonfinite && !warned) {
            fmt::print(stderr, "attn: warning: {}: a NaN or inf first appears at {}\n", p.where,
                       p.nonfinite->describe());
            warned = true;
        }
        pool.add(p.summaries);
    });
    return pool;
}

}  // namespace

int run_attend_prompts(const AttendModelOptions& opt, const std::string& show,
                       const io::OutputSpec& spec) {
    if (io::format_columns(spec.format).page)
        throw UsageError(
            "--format html: a page draws one prompt's weights; give it as a TEXT or --ids "
            "(--prompts writes head_stats and offsets)");
    OpenModel m = open_model_config(opt.model);
    m.config.compute_dtype = io::reduced_format(spec.dtype);
    const model::ModelConfig& c = m.config;
    const ModelArrays arrays = prompts_show(show, c);
    const auto layers = parse_index_list(opt.layer, c.num_layers, "--layer");
    const auto heads = parse_index_list(opt.head, c.num_heads, "--head");
    std::optional<text::Tokenizer> tokenizer;  // built once; text lines need it
    if (m.source.tokenizer_files() != io::TokenizerFiles::none || !PromptReader::jsonl(opt.prompts))
        tokenizer = naming_option("--model", [&] { return load_tokenizer(m.source); });
    PromptReader reader(opt.prompts, tokenizer ? &*tokenizer : nullptr, c.vocab_size);
    const PooledSummaries pool = spec.dtype == io::Dtype::float64
                                     ? run_all<double>(m, reader, layers, heads, arrays.summaries)
                                     : run_all<float>(m, reader, layers, heads, arrays.summaries);

    const io::FormatColumns& is = io::format_columns(spec.format);
    std::vector<io::MatrixStream> streams;
    for (const Show item : arrays.shown) {
        if (item == Show::head_stats) {
            auto stats = std::make_shared<const std::vector<model::HeadStats>>(pool.head_stats());
            streams.push_back(head_stats_stream(
                stats->size(), [stats](std::size_t r) { return (*stats)[r]; }, 0,
                fmt::format("per layer and head, over {} prompts' queries: entropy (nats), mean "
                            "distance, weight on the first, previous and own position",
                            pool.prompts()),
                is.numpy || is.picture));
        } else {
            streams.push_back(
                pooled_offsets(layers, heads, pool.longest(),
                               std::make_shared<const std::vector<double>>(pool.offsets())));
            streams.back().info.dtype = spec.dtype;
        }
    }
    io::Output output(spec, streams.size());
    io::drive(output.sink(), streams);
    output.commit();
    return kOk;
}

}  // namespace attn::cli
