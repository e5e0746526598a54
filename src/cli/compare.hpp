// attn compare: one prompt (or a file of prompts) through two runs, model A and model B (another
// checkpoint with A's tokenizer, a GGUF file of A, A in another dtype), and how far apart their
// attention weights, hidden states and next-token distributions are. compare.cpp: options, both
// models opened and checked against each other, the forwards run side by side a layer at a time;
// compare_output.cpp: the tables in every format and the layers x heads grid of js.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attn/model/run_divergence.hpp"
#include "io/output_spec.hpp"

namespace attn::cli {

/// The arrays --show may name: weights (the per-head table), hidden, next.
using CompareShow = model::DivergenceChoice;

/// What the prompts' runs gathered, and the pictures' title.
struct CompareResult {
    model::RunDivergence runs;
    std::string title;  // "A against B"
};

/// "weights", "hidden", "next", comma-separated; UsageError naming --show otherwise.
CompareShow parse_compare_show(const std::string& text);

/// UsageError for an output compare cannot write (heatmap, html, npy; json, svg or png into a
/// directory; a picture of hidden or next), checked before any forward runs.
void check_compare_output(const CompareShow& show, const io::OutputSpec& spec);

/// Writes r in spec's format: csv/tsv/md/table/json one table per array shown (weights:
/// layer,head,js,top1,max_abs; hidden: layer,hidden; next: kl,top1), npz one array per column
/// (hidden's and next's prefixed hidden_, next_), svg/png the layers x heads grid of js.
void write_compare(const CompareResult& r, const CompareShow& show, const io::OutputSpec& spec);

}  // namespace attn::cli
