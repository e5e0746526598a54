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
#include "attn/model/head_scores.hpp"
#include "cli/errors.hpp"
#include "io/input_file.hpp"
#include "io/npy.hpp"
#include "io/npy_strings.hpp"
#include "io/zip.hpp"

namespace attn::cli {

namespace {

constexpr double kExact = 9007199254740992.0;  // 2^53: a float64 count above it is not exact
constexpr std::array<std::string_view, 3> kTexts{"format", "model", "options"};
constexpr std::array<std::string_view, 6> kNumbers{"layers", "heads",          "sums",
                                                   "argmax", "prompt_lengths", "prompt_ids"};

[[noreturn]] void refuse(const std::string& path, std::string_view member,
                         const std::string& what) {
    throw UsageError(fmt::format("{}: {}: {}", path, member, what));
}

/// Whether x is a whole number least <= x < 2^53.
bool whole(double x, double least) {
    return std::isfinite(x) && x >= least && x < kExact && x == std::floor(x);
}

std::string shape_text(const std::vector<std::size_t>& shape) {
    if (shape.size() == 1) return fmt::format("({},)", shape[0]);
    return fmt::format("({})", fmt::join(shape, ", "));
}

/// sums' column c: rows_previous .. abs_induction (6 groups of 3 patterns), then prompts, sink,
/// self, entropy, queries.
std::string sums_column(std::size_t c) {
    static constexpr std::array<const char*, 6> kGroups{"rows",          "rows_queries", "plain",
                                                        "plain_queries", "mul",          "abs"};
    static constexpr std::array<const char*, 5> kTail{"prompts", "sink", "self", "entropy",
                                                      "queries"};
    if (c < 18) return fmt::format("{}_{}", kGroups[c / 3], model::kPatternNames[c % 3]);
    return kTail[c - 18];
}

/// What sums' column c may hold: a count; a sum of weights (>= 0: A >= 0, entropy >= 0); mul's
/// sum of sum A*D / sum A, NaN once a prompt keeps no weight (one token, an exclusion: 0 / 0);
/// abs's sum of 1 - sum |A - D| / n (below 0 where D holds more ones than n).
enum class Column { count, sum, mul, abs };
Column sums_kind(std::size_t c) {
    if (c == 18 || c == 22 || (c < 18 && (c / 3 == 1 || c / 3 == 3))) return Column::count;
    if (c >= 12 && c < 15) return Column::mul;
    if (c >= 15 && c < 18) return Column::abs;
    return Column::sum;
}

/// layers or heads: (K,) whole numbers increasing within 0 .. count - 1.
std::vector<std::size_t> indices(const std::string& path, std::string_view member,
                                 const io::NpyArray& a, std::size_t count) {
    if (a.shape.size() != 1 || a.values.empty())
        refuse(path, member,
               fmt::format("shape {}; a list (K,) of one or more {} expected", shape_text(a.shape),
                           member));
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < a.values.size(); ++k) {
        const double v = a.values[k];
        if (!whole(v, 0) || v >= static_cast<double>(count) || (k > 0 && v <= a.values[k - 1]))
            refuse(path, member,
                   fmt::format("{} at index {}; whole numbers 0 .. {} increasing expected (the "
                               "model's {} {})",
                               v, k, count - 1, count, member));
        out.push_back(static_cast<std::size_t>(v));
    }
    return out;
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
    std::map<std::string, io::NpyArray> arrays;
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
            m.arrays[key] = std::move(a);
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
    p.layers = indices(path, "layers", m.arrays.at("layers"), config.num_layers);
    p.heads = indices(path, "heads", m.arrays.at("heads"), config.num_heads);
    for (const auto& [member, option, list] :
         {std::tuple{"layers", "--layer", &p.layers}, std::tuple{"heads", "--head", &p.heads}}) {
        const std::string given = fmt::format("{}", fmt::join(*list, ","));
        const std::string said = option_value(path, p.options, option);
        if (given != said)
            refuse(path, member,
                   fmt::format("{}; the options' {}={} expected", given, option, said));
    }

    // prompts: (P) lengths adding up to the (N) ids, each id in the vocabulary
    const io::NpyArray& lengths = m.arrays.at("prompt_lengths");
    const io::NpyArray& ids = m.arrays.at("prompt_ids");
    if (lengths.shape.size() != 1)
        refuse(path, "prompt_lengths",
               fmt::format("shape {}; a list (P,) expected", shape_text(lengths.shape)));
    if (ids.shape.size() != 1)
        refuse(path, "prompt_ids",
               fmt::format("shape {}; a list (N,) expected", shape_text(ids.shape)));
    std::size_t total = 0, longest = 0;
    double queries = 0;  // of each head: the queries seeing >= 2 keys
    for (std::size_t k = 0; k < lengths.values.size(); ++k) {
        const double n = lengths.values[k];
        if (!whole(n, 1))
            refuse(path, "prompt_lengths",
                   fmt::format("{} at index {}; a whole number of tokens >= 1 expected", n, k));
        if (n > static_cast<double>(ids.values.size() - total))
            refuse(path, "prompt_ids",
                   fmt::format("{} ids; prompt_lengths adds up to more", ids.values.size()));
        const auto len = static_cast<std::size_t>(n);
        total += len;
        longest = std::max(longest, len);
        queries += static_cast<double>(config.causal ? len - 1 : (len >= 2 ? len : 0));
    }
    if (total != ids.values.size())
        refuse(path, "prompt_ids",
               fmt::format("{} ids; the {} of prompt_lengths expected", ids.values.size(), total));
    for (std::size_t k = 0; k < ids.values.size(); ++k)
        if (!whole(ids.values[k], 0) || ids.values[k] >= static_cast<double>(config.vocab_size))
            refuse(path, "prompt_ids",
                   fmt::format("{} at index {}; a token id 0 .. {} expected (config.json's "
                               "vocab_size {})",
                               ids.values[k], k, config.vocab_size - 1, config.vocab_size));
    for (std::size_t at = 0; const double n : lengths.values) {
        const auto first = ids.values.begin() + static_cast<std::ptrdiff_t>(at);
        p.prompts.emplace_back(first, first + static_cast<std::ptrdiff_t>(n));
        at += static_cast<std::size_t>(n);
    }

    // sums: (L H, 23), each column as its kind, prompts = P and queries as the lengths give
    const std::size_t heads = p.layers.size() * p.heads.size();
    const io::NpyArray& sums = m.arrays.at("sums");
    if (sums.shape != std::vector<std::size_t>{heads, kPartialSums})
        refuse(path, "sums",
               fmt::format("shape {}; ({}, {}) expected (layers x heads, the 23 sums)",
                           shape_text(sums.shape), heads, kPartialSums));
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t c = 0; c < kPartialSums; ++c) {
            const double v = sums.values[h * kPartialSums + c];
            const Column kind = sums_kind(c);
            const bool sum = std::isfinite(v) && v >= 0;
            const bool ok = kind == Column::count ? whole(v, 0)
                            : kind == Column::sum ? sum
                            : kind == Column::mul ? sum || std::isnan(v)
                                                  : std::isfinite(v);
            const char* expected = kind == Column::count ? "a count (whole number >= 0)"
                                   : kind == Column::sum ? "a finite sum >= 0"
                                   : kind == Column::mul ? "a finite sum >= 0 or nan"
                                                         : "a finite sum";
            if (!ok)
                refuse(path, "sums",
                       fmt::format("{} at row {}, column {} ({}); {} expected", v, h, c,
                                   sums_column(c), expected));
        }
    for (std::size_t h = 0; h < heads; ++h) {
        const double prompts = sums.values[h * kPartialSums + 18];
        const double counted = sums.values[h * kPartialSums + 22];
        if (prompts != static_cast<double>(p.prompts.size()))
            refuse(
                path, "sums",
                fmt::format("{} prompts at row {} (column 18); the {} of prompt_lengths expected",
                            prompts, h, p.prompts.size()));
        if (counted != queries)
            refuse(path, "sums",
                   fmt::format(
                       "{} queries at row {} (column 22); the {} the prompt lengths give expected",
                       counted, h, queries));
    }
    p.sums = sums.values;

    // argmax: (L H, 2 longest - 1) counts, each row adding up to its head's queries
    const io::NpyArray& argmax = m.arrays.at("argmax");
    p.width = longest == 0 ? 1 : 2 * longest - 1;
    if (argmax.shape != std::vector<std::size_t>{heads, p.width})
        refuse(path, "argmax",
               fmt::format("shape {}; ({}, {}) expected (layers x heads, offsets -{} .. {} of "
                           "the longest prompt)",
                           shape_text(argmax.shape), heads, p.width, (p.width - 1) / 2,
                           (p.width - 1) / 2));
    for (std::size_t h = 0; h < heads; ++h) {
        double row = 0;  // counts >= 0: once past queries (< 2^53), rounding keeps it past
        for (std::size_t k = 0; k < p.width; ++k) {
            const double v = argmax.values[h * p.width + k];
            if (!whole(v, 0))
                refuse(path, "argmax",
                       fmt::format("{} at row {}, column {}; a count (whole number >= 0) expected",
                                   v, h, k));
            row += v;
        }
        if (row != queries)
            refuse(path, "argmax",
                   fmt::format("row {} adds up to {}; the {} queries of sums expected", h, row,
                               queries));
    }
    p.argmax = argmax.values;
    return p;
}

}  // namespace attn::cli
