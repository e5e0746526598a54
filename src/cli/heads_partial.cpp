// attn heads --partial and attn merge. A partial is an npz of:
//   format   <U (1)          "attn heads partial 1"
//   model    <U (k)          "config=<config.json, keys sorted>", "tensor NAME (SHAPE)" ...
//   options  <U (m)          "--measure=rows", "--exclude-bos=false", ... (what changes numbers)
//   layers   (L), heads (H)  the selected layers and heads
//   sums     (L H, 23)       per (layer, head): rows[3], rows_queries[3], plain[3],
//                            plain_queries[3], mul[3], abs[3], prompts, sink, self, entropy,
//                            queries (counts exact: below 2^53)
//   argmax   (L H, 2 R + 1)  argmax offset counts, o = -R .. R
//   prompt_lengths (P), prompt_ids (sum of the lengths)
// Merging adds sums and argmax and concatenates the prompts, in the order of the parts; each
// part is read as untrusted input, every member checked (heads_partial_read.hpp).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <memory>
#include <set>
#include <system_error>

#include "cli/command.hpp"
#include "cli/errors.hpp"
#include "cli/exit_code.hpp"
#include "cli/heads.hpp"
#include "cli/heads_partial_read.hpp"
#include "io/held_array.hpp"

namespace attn::cli {

namespace {

constexpr const char* kFormat = kPartialFormat;
constexpr std::size_t kSums = model::kPartialSums;

/// The first difference between two model identities, in words.
std::string model_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    for (std::size_t k = 0; k < std::max(a.size(), b.size()); ++k) {
        const std::string x = k < a.size() ? a[k] : "(nothing)",
                          y = k < b.size() ? b[k] : "(nothing)";
        if (x == y) continue;
        if (x.starts_with("config=") && y.starts_with("config=")) {
            const auto ja = nlohmann::json::parse(x.substr(7), nullptr, false);
            const auto jb = nlohmann::json::parse(y.substr(7), nullptr, false);
            std::set<std::string> keys;
            for (const auto& [key, v] : ja.items()) keys.insert(key);
            for (const auto& [key, v] : jb.items()) keys.insert(key);
            for (const auto& key : keys) {
                const std::string va = ja.contains(key) ? ja[key].dump() : "(absent)";
                const std::string vb = jb.contains(key) ? jb[key].dump() : "(absent)";
                if (va != vb) return fmt::format("config.json's {}: {} against {}", key, vb, va);
            }
        }
        return fmt::format("{} against {}", y, x);
    }
    return "";
}

}  // namespace

void write_partial(const HeadsRun& run, const RunIdentity& identity, const io::OutputSpec& spec) {
    const std::size_t heads = run.sums.size();
    std::size_t reach = 0;
    for (const auto& s : run.sums) reach = std::max(reach, s.reach());
    std::vector<double> sums, argmax, lengths, ids;
    for (model::HeadSums s : run.sums) {
        const auto v = model::pack_head_sums(s);
        sums.insert(sums.end(), v.begin(), v.end());
        s.widen(reach);
        for (const auto c : s.argmax) argmax.push_back(static_cast<double>(c));
    }
    for (const auto& p : run.prompts) {
        lengths.push_back(static_cast<double>(p.size()));
        for (const auto id : p) ids.push_back(static_cast<double>(id));
    }
    std::vector<io::MatrixStream> streams;
    streams.push_back(io::held_strings("format", {kFormat}));
    streams.push_back(io::held_strings("model", identity.model));
    streams.push_back(io::held_strings("options", identity.options));
    streams.push_back(io::held_array("layers", {run.layers.size()},
                                     std::vector<double>(run.layers.begin(), run.layers.end())));
    streams.push_back(io::held_array("heads", {run.heads.size()},
                                     std::vector<double>(run.heads.begin(), run.heads.end())));
    // shapes first: an argument's move may happen before a size() beside it is read
    const std::size_t widths = 2 * reach + 1, prompts = lengths.size(), total = ids.size();
    streams.push_back(io::held_array("sums", {heads, kSums}, std::move(sums)));
    streams.push_back(io::held_array("argmax", {heads, widths}, std::move(argmax)));
    streams.push_back(io::held_array("prompt_lengths", {prompts}, std::move(lengths)));
    streams.push_back(io::held_array("prompt_ids", {total}, std::move(ids)));
    io::OutputSpec wide = spec;
    wide.dtype = io::Dtype::float64;  // sums and counts exactly
    io::Output output(wide, streams.size());
    io::drive(output.sink(), streams);
    output.commit();
}

HeadsRun merge_partials(const std::vector<std::string>& paths, RunIdentity* identity) {
    for (std::size_t a = 0; a < paths.size(); ++a)
        for (std::size_t b = a + 1; b < paths.size(); ++b) {
            std::error_code error;
            if (paths[a] == paths[b] || std::filesystem::equivalent(paths[a], paths[b], error))
                throw UsageError(fmt::format(
                    "{} and {}: the same partial twice; give each part once", paths[a], paths[b]));
        }
    HeadsRun run;
    std::vector<std::string> model, options;
    for (std::size_t k = 0; k < paths.size(); ++k) {
        const Partial part = read_partial(paths[k]);
        if (k == 0) {
            model = part.model;
            options = part.options;
            run.layers = part.layers;
            run.heads = part.heads;
            run.sums.resize(run.layers.size() * run.heads.size());
            for (const std::string& o : options) {
                if (o == "--measure=mul") run.measure = model::Measure::mul;
                if (o == "--measure=abs") run.measure = model::Measure::abs;
            }
        } else {
            if (part.model != model)
                throw UsageError(fmt::format("{}: a partial of another model than {}: {}", paths[k],
                                             paths[0], model_difference(model, part.model)));
            const auto& o = part.options;
            for (std::size_t j = 0; j < std::max(o.size(), options.size()); ++j) {
                const std::string a = j < options.size() ? options[j] : "(none)";
                const std::string b = j < o.size() ? o[j] : "(none)";
                if (a != b)
                    throw UsageError(
                        fmt::format("{}: made with other options than {}: {} against {}", paths[k],
                                    paths[0], b, a));
            }
        }
        // read_partial checked the shapes against the options, equal in every part
        for (std::size_t h = 0; h < run.sums.size(); ++h)
            run.sums[h] += model::unpack_head_sums(&part.sums[h * kSums],
                                                   &part.argmax[h * part.width], part.width);
        run.prompts.insert(run.prompts.end(), part.prompts.begin(), part.prompts.end());
    }
    if (identity) *identity = {model, options};
    return run;
}

namespace {

struct MergeOptions {
    std::vector<std::string> parts;
    bool partial = false;
    std::string show = "scores";
    OutputOptions out;
};

int run_merge(const MergeOptions& opt) {
    if (opt.parts.empty())
        throw UsageError(
            "PARTS: give the partials to merge, PART.npz ... (each written by attn heads "
            "--partial)");
    const io::OutputSpec spec = resolve_output(opt.out);
    const HeadsShow show = parse_heads_show(opt.show);
    if (opt.partial && spec.format != io::Format::npz)
        throw UsageError("--partial: writes the sums as npz; give -o PART.npz or -f npz");
    if (!opt.partial) check_head_table_output(spec, "heads");
    RunIdentity identity;
    const HeadsRun run = merge_partials(opt.parts, &identity);
    if (opt.partial)
        write_partial(run, identity, spec);
    else
        write_heads(run, show, spec);
    return kOk;
}

}  // namespace

Command add_merge(CLI::App& root) {
    auto opt = std::make_shared<MergeOptions>();
    CLI::App* sub = root.add_subcommand(
        "merge",
        "Add up the partials of attn heads --partial (shards of a data set) into the scores one "
        "run over all their prompts gives");
    // not required(): run_merge names PARTS when none is given
    sub->add_option("parts", opt->parts, "The partials (npz), in order")->type_name("PART.npz");
    sub->add_flag("--partial", opt->partial, "Write the merged sums as a partial again");
    sub->add_option("--show", opt->show, "scores, prompts (the ids run), or both")
        ->type_name("LIST")
        ->capture_default_str();
    add_output_options(*sub, opt->out);
    sub->footer(
        "Examples:\n"
        "  attn merge part1.npz part2.npz part3.npz -o heads.csv\n"
        "  attn merge part*.npz -o heads.svg\n");
    return {sub, [opt] { return run_merge(*opt); }, &opt->out};
}

}  // namespace attn::cli
