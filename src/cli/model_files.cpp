#include "cli/model_files.hpp"

#include <fmt/format.h>

#include "attn/model/tensors.hpp"
#include "cli/errors.hpp"
#include "cli/model_gguf.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::cli {

void add_model_options(CLI::App& app, ModelOptions& opt) {
    opt.model_opt = app.add_option("--model", opt.model,
                                   "A Hugging Face model: a folder with its files, or ORG/NAME in "
                                   "the local cache; or a FILE.gguf, or ollama:NAME[:TAG] in "
                                   "ollama's store (never the network)")
                        ->type_name("M");
    opt.revision_opt =
        app.add_option("--revision", opt.revision,
                       "With --model ORG/NAME: a ref name (branch or tag) or a commit of the cache")
            ->type_name("R");
}

io::ModelSource open_source(const ModelOptions& opt) {
    io::ModelSource source = [&] {
        try {
            return io::ModelSource::open({opt.model, opt.revision, opt.revision_given()});
        } catch (const io::ModelSourceError& e) {
            throw UsageError(std::string("--revision: ") + e.what());
        }
    }();
    if (const io::GgufFile* file = source.gguf()) {
        GgufModel g;
        try {
            g = gguf_model(*file);
        } catch (const model::ConfigError& e) {
            throw UsageError(file->path().string() + ": " + e.what());
        }
        source.set_gguf_model(std::move(g.config_json), std::move(g.names));
    }
    return source;
}

OpenModel open_model_config(const ModelOptions& opt) {
    OpenModel m{open_source(opt), {}};
    std::string text;
    try {
        text = m.source.config_json();
    } catch (const io::ModelSourceError& e) {
        if (e.kind == io::ModelSourceError::Kind::no_config)
            throw UsageError(std::string("--model: ") + e.what());
        throw UsageError(e.what());
    }
    try {
        m.config = model::parse_config(text);
    } catch (const model::ConfigError& e) {
        throw UsageError(m.source.config_path().string() + ": " + e.what());
    }
    return m;
}

OpenModel open_model(const ModelOptions& opt, std::uint64_t n, std::uint64_t value_bytes) {
    OpenModel m = open_model_config(opt);
    open_weights(m, n, value_bytes);
    return m;
}

void open_weights(OpenModel& m, std::uint64_t n, std::uint64_t value_bytes,
                  const model::ForwardKeep& keep) {
    // Sizes from config.json against --max-memory before anything is mapped or allocated.
    const model::ModelConfig& c = m.config;
    const std::uint64_t bytes = model::forward_bytes(c, n, value_bytes, keep);
    const std::string what = fmt::format("--model: {}: a forward of {} over {} tokens",
                                         m.source.config_path().string(), c.model_type(), n);
    try {
        runtime::reserve(bytes, what);
    } catch (const runtime::BudgetExceeded& e) {
        // what would fit: fewer tokens, or (when n x n arrays are asked) the same without them
        const std::uint64_t fits = model::longest_forward(c, n, value_bytes, keep, e.limit);
        std::string hint =
            fits > 0 ? fmt::format("{} tokens fit", fits) : std::string("not one token fits");
        if (keep.lens.layers > 0) {  // the lens's unembedding blocks and top K (lens_bytes)
            model::ForwardKeep plain = keep;
            plain.lens = {};
            hint += fmt::format(
                "; the lens needs {} of it, without it the {} tokens need {}",
                runtime::human_bytes(model::lens_bytes(c, n, value_bytes, keep.lens)), n,
                runtime::human_bytes(model::forward_bytes(c, n, value_bytes, plain)));
        }
        if (keep.square && !c.compute_dtype) {
            model::ForwardKeep flat = keep;
            flat.square = false;
            const std::uint64_t without = model::forward_bytes(c, n, value_bytes, flat);
            if (without <= e.limit)
                hint += fmt::format(
                    "; without scores, weights and the summaries (--show next, hidden, "
                    "context) the {} tokens need {}",
                    n, runtime::human_bytes(without));
        }
        throw UsageError(fmt::format("{} (--max-memory): {}", e.what(), hint));
    }
    m.source.open_weights();
    for (const auto& spec : model::model_tensors(m.config)) {
        m.weights().tensor(spec.names, spec.shape);
        if (m.source.gguf()) m.weights().release(spec.names);  // what it made, until read
    }
}

}  // namespace attn::cli
