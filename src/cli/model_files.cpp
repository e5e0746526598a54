#include "cli/model_files.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <system_error>

#include "cli/errors.hpp"
#include "io/model_locator.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::cli {

namespace fs = std::filesystem;

std::filesystem::path model_folder(const ModelOptions& opt) {
    std::error_code ec;
    if (opt.revision_given && fs::is_directory(opt.model, ec))
        throw UsageError("--revision: " + opt.model +
                         " is a folder; --revision picks a snapshot of ORG/NAME in the Hugging "
                         "Face cache");
    if (opt.revision.empty()) throw UsageError("--revision: empty; give a ref name or a commit");
    return io::locate_model(opt.model, opt.revision);
}

model::ModelConfig read_model_config(const fs::path& folder) {
    const fs::path path = folder / "config.json";
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw UsageError(
            fmt::format("--model: {} holds no config.json (a model folder holds config.json and "
                        "model.safetensors)",
                        folder.string()));
    // config.json files are a few kB; a large one is not a config.
    const auto size = fs::file_size(path, ec);
    if (!ec && size > (std::uintmax_t{16} << 20))
        throw UsageError(
            fmt::format("{}: {} bytes, too large for a config.json", path.string(), size));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::system_error(errno, std::generic_category(), path.string());
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    try {
        return model::parse_config(text);
    } catch (const model::ConfigError& e) {
        throw UsageError(path.string() + ": " + e.what());
    }
}

OpenModel open_model(const ModelOptions& opt, std::uint64_t n, std::uint64_t value_bytes) {
    OpenModel m;
    m.folder = model_folder(opt);
    m.config = read_model_config(m.folder);
    open_weights(m, n, value_bytes);
    return m;
}

void open_weights(OpenModel& m, std::uint64_t n, std::uint64_t value_bytes) {
    // Sizes from config.json against --max-memory before anything is mapped or allocated.
    const std::uint64_t bytes = model::forward_bytes(m.config, n, value_bytes);
    runtime::reserve(bytes,
                     fmt::format("--model: {}: a forward of {} over {} tokens",
                                 (m.folder / "config.json").string(), m.config.model_type(), n));
    m.checkpoint = io::Checkpoint::open_folder(m.folder);
    m.specs = model::model_tensors(m.config);
    m.tensors.reserve(m.specs.size());
    for (const auto& spec : m.specs)
        m.tensors.push_back(m.checkpoint.expect(spec.names, spec.shape));
}

}  // namespace attn::cli
