#include "cli/heads_partial_read.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <string_view>

#include "attn/model/config.hpp"
#include "attn/model/head_partial.hpp"
#include "cli/errors.hpp"
#include "io/input_file.hpp"
#include "io/npy.hpp"
#include "io/npy_strings.hpp"
#include "io/zip.hpp"

namespace attn::cli {

namespace {

constexpr std::array<std::string_view, 3> kTexts{"format", "model", "options"};
constexpr std::array<std::string_view, 6> kNumbers{"layers", "heads",          "sums",
                                                   "argmax", "prompt_lengths", "prompt_ids"};

[[noreturn]] void refuse(const std::string& path, std::string_view member,
                         const std::string& what) {
    throw UsageError(fmt::format("{}: {}: {}", path, member, what));
}

/// The value of the one options line "NAME=VALUE".
std::string option_value(const std::string& path, const std::vector<std::string>& options,
                         const std::string& name) {
    std::vector<std::string> found;
    for (const std::string& o : options)
        if (o.starts_with(name + "=")) found.push_back(o.substr(name.size() + 1));
    if (found.size() != 1)
        refuse(path, "options", fmt::format("{} lines {}=; one expected", found.size(), name));
    return found[0];
}

/// The text and number members by name, each number member float64.
struct Members {
    std::map<std::string, std::vector<std::string>> text;
    std::map<std::string, model::PartialArray> arrays;
};

Members read_members(const std::string& path) {
    io::InputFile input(path, true);
    std::ostringstream bytes;
    bytes << input.stream().rdbuf();
    const std::string archive = bytes.str();
    std::vector<io::ZipEntry> entries;
    try {
        entries = io::read_stored_zip(archive, path);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    // the format first: an npz of anything else is named as such, whatever its members hold
    const auto format = std::find_if(entries.begin(), entries.end(),
                                     [](const io::ZipEntry& e) { return e.name == "format.npy"; });
    bool partial = format != entries.end() && io::is_npy_strings(format->data);
    try {
        partial = partial && io::read_npy_strings(format->data, path) ==
                                 std::vector<std::string>{kPartialFormat};
    } catch (const std::invalid_argument&) {
        partial = false;
    }
    if (!partial)
        throw UsageError(
            fmt::format("{}: not a partial of attn heads (made by attn heads --partial)", path));
    Members m;
    for (const io::ZipEntry& e : entries) {
        const std::string key =
            e.name.substr(0, e.name.size() - std::min<std::size_t>(4, e.name.size()));
        const bool text = std::ranges::find(kTexts, key) != kTexts.end();
        if (!e.name.ends_with(".npy") ||
            (!text && std::ranges::find(kNumbers, key) == kNumbers.end()))
            refuse(path, e.name,
                   "not a member of a partial (format, model, options, layers, heads, sums, "
                   "argmax, prompt_lengths, prompt_ids)");
        if (m.text.count(key) || m.arrays.count(key)) refuse(path, key, "twice; once expected");
        if (text != io::is_npy_strings(e.data))
            refuse(path, key,
                   text ? "numbers; text (<U) expected" : "text; float64 (<f8) expected");
        try {
            if (text) {
                m.text[key] = io::read_npy_strings(e.data, path + ": " + key);
                continue;
            }
            std::istringstream member{std::string(e.data)};
            io::NpyArray a = io::read_npy(member, path + ": " + key);
            if (a.dtype != io::Dtype::float64)
                refuse(path, key,
                       fmt::format("{} numbers; float64 (<f8) expected", io::dtype_name(a.dtype)));
            m.arrays[key] = {std::move(a.shape), std::move(a.values)};
        } catch (const UsageError&) {
            throw;
        } catch (const std::invalid_argument& error) {
            const std::string what = error.what();
            const auto at = what.find("dtype '");
            if (text || at == std::string::npos) throw UsageError(what);
            const std::string descr = what.substr(at + 7, what.find('\'', at + 7) - at - 7);
            refuse(path, key, fmt::format("dtype '{}'; float64 (<f8) expected", descr));
        }
    }
    for (const std::string_view name : kNumbers)
        if (!m.arrays.count(std::string(name)))
            throw UsageError(fmt::format("{}: the partial has no array {}", path, name));
    for (const std::string_view name : kTexts)
        if (!m.text.count(std::string(name)))
            throw UsageError(fmt::format("{}: the partial has no {}", path, name));
    return m;
}

model::ModelConfig model_config(const std::string& path, const std::vector<std::string>& model) {
    if (model.empty() || !model[0].starts_with("config="))
        refuse(path, "model", "no config=... first; config.json's text expected");
    try {
        return model::parse_config(std::string_view(model[0]).substr(7));
    } catch (const std::invalid_argument& e) {
        refuse(path, "model", std::string("config=: ") + e.what());
    }
}

}  // namespace

Partial read_partial(const std::string& path) {
    Members m = read_members(path);
    Partial p;
    p.model = m.text.at("model");
    p.options = m.text.at("options");
    const model::ModelConfig config = model_config(path, p.model);
    const std::string measure = option_value(path, p.options, "--measure");
    if (measure != "rows" && measure != "mul" && measure != "abs")
        refuse(path, "options", fmt::format("--measure={}; rows, mul or abs expected", measure));
    std::vector<std::size_t> lists[2];
    try {
        lists[0] = model::partial_indices("layers", m.arrays.at("layers"), config.num_layers);
        lists[1] = model::partial_indices("heads", m.arrays.at("heads"), config.num_heads);
    } catch (const model::PartialError& e) {
        refuse(path, e.member, e.what());
    }
    for (const auto& [member, option, list] :
         {std::tuple{"layers", "--layer", &lists[0]}, std::tuple{"heads", "--head", &lists[1]}}) {
        const std::string given = fmt::format("{}", fmt::join(*list, ","));
        const std::string said = option_value(path, p.options, option);
        if (given != said)
            refuse(path, member,
                   fmt::format("{}; the options' {}={} expected", given, option, said));
    }
    try {
        static_cast<model::HeadPartial&>(p) = model::check_head_partial(
            {m.arrays.at("layers"), m.arrays.at("heads"), m.arrays.at("sums"),
             m.arrays.at("argmax"), m.arrays.at("prompt_lengths"), m.arrays.at("prompt_ids")},
            config);
    } catch (const model::PartialError& e) {
        refuse(path, e.member, e.what());
    }
    return p;
}

}  // namespace attn::cli
