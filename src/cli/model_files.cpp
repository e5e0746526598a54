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

void open_weights(OpenModel& m, std::uint64_t n, std::uint64_t value_bytes) {
    // Sizes from config.json against --max-memory before anything is mapped or allocated.
    const std::uint64_t bytes = model::forward_bytes(m.config, n, value_bytes);
    runtime::reserve(bytes, fmt::format("--model: {}: a forward of {} over {} tokens",
                                        m.source.config_path().string(), m.config.model_type(), n));
    m.source.open_weights();
    for (const auto& spec : model::model_tensors(m.config)) {
        m.weights().tensor(spec.names, spec.shape);
        if (m.source.gguf()) m.weights().release(spec.names);  // what it made, until read
    }
}

}  // namespace attn::cli
