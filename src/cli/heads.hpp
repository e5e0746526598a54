// attn heads and attn merge: what each head does, over one prompt, the probe or a file of
// prompts (heads.cpp: options, the model opened once, the forward per prompt); the prompts
// read (heads_prompts.cpp); the scores written in every format (heads_output.cpp); the sums of
// a shard written with --partial and merged (heads_partial.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/model/config.hpp"
#include "attn/model/head_scores.hpp"
#include "attn/text/tokenizer.hpp"
#include "io/output_spec.hpp"

namespace attn::cli {

/// What one run (or a merge of shards) has summed: sums[k * heads.size() + h] is layer
/// layers[k], head heads[h].
struct HeadsRun {
    std::vector<std::size_t> layers, heads;
    std::vector<model::HeadSums> sums;
    std::vector<std::vector<std::int64_t>> prompts;  // the ids of every prompt, in order
    model::Measure measure = model::Measure::rows;
};

/// The options that change the numbers, as "name=value" lines (a partial's `options`).
/// Equal lines: parts that merge.
struct RunIdentity {
    std::vector<std::string> model;    // "config=<config.json, keys sorted>", "tensor NAME SHAPE"
    std::vector<std::string> options;  // "--measure=rows", "--exclude-bos=false", ...
};

/// The arrays --show may name.
struct HeadsShow {
    bool scores = true;
    bool prompts = false;
};
/// "scores", "prompts" or both, comma-separated; UsageError naming --show otherwise.
HeadsShow parse_heads_show(const std::string& text);

/// Writes the scores (and prompts) of run in spec's format: csv/tsv/md/table (table also the
/// sink rate), json {"columns", "data", "prompts", "sink_rate"}, npz one array per column
/// (and prompts), svg/png the layers x heads grid coloured by type.
void write_heads(const HeadsRun& run, const HeadsShow& show, const io::OutputSpec& spec);

/// check_head_table_output, and UsageError naming --show for a picture (svg, png: the grid of
/// the scores) of anything but scores: checked before any forward.
void check_heads_output(const HeadsShow& show, const io::OutputSpec& spec);

/// UsageError for an output a table of (layer, head) rows and its grid picture cannot be
/// (heatmap, html, npy; json, svg or png into a directory), naming `command` (heads, compare):
/// checked before any forward runs.
void check_head_table_output(const io::OutputSpec& spec, std::string_view command);

/// --partial: the sums and counts of run with the model's identity and the options, as npz.
void write_partial(const HeadsRun& run, const RunIdentity& identity, const io::OutputSpec& spec);

/// The runs of the parts added up, in the order given, and (identity) the first part's
/// identity. std::system_error (exit 1) for a part that cannot be read; UsageError (exit 2)
/// for a file that is no partial or fails read_partial's checks (heads_partial_read.hpp), for
/// one file given twice, and for parts of different models or options, naming the first
/// difference.
HeadsRun merge_partials(const std::vector<std::string>& paths, RunIdentity* identity);

/// --probe-ids "A:B" (or "" for 0:size) within 0 .. size, without `special`, increasing;
/// std::invalid_argument for a malformed or empty range.
std::vector<std::int64_t> allowed_range(const std::string& probe_ids, std::size_t size,
                                        const std::vector<std::int64_t>& special);

/// The probe's allowed ids: 0 .. size - 1 (or A .. B - 1 of --probe-ids "A:B") without the
/// tokenizer's added tokens, below vocab. UsageError naming --probe-ids for a bad range.
std::vector<std::int64_t> allowed_probe_ids(const text::Tokenizer& tokenizer, std::size_t vocab,
                                            const std::string& probe_ids);

}  // namespace attn::cli
