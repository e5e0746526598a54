// The arrays of attend --model past the weights: the logit lens (lens, lens_next) and the
// attention weighed by the value vectors (value_norms, value_weights, value_rollout), each made
// from model::ModelRun's records when the writer asks (attend_model_arrays.cpp lists them).
#pragma once

#include <string>
#include <vector>

#include "attn/model/run.hpp"
#include "cli/attend_model.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

/// --top K and --position P (lens) into the group "Model".
void add_lens_options(CLI::App& group, AttendModelOptions& opt);
/// The lens's choice from --top and --position over n tokens and vocabulary V: UsageError
/// naming the option and its range (--top 1..V, --position -n..n-1, -1 the last), --position
/// without lens, lens_next of one token.
void lens_options(const AttendModelOptions& opt, std::size_t n, std::size_t V, ModelArrays& arrays);

/// lens: rows (layer, position, rank) of the selected layers, the positions shown (--position
/// or all) and the top K; columns layer, position, rank, id, token, probability (binary
/// formats: the token column left out).
template <class T>
io::MatrixStream lens_stream(model::ModelRun<T>& run, const Spelling& spell, bool binary);
/// lens_next (layers, n - 1): column p is the probability of the token at p + 1.
template <class T>
io::MatrixStream lens_next_stream(model::ModelRun<T>& run, const std::vector<std::string>& tokens);
/// value_norms (layers, heads, n, n), query rows as --query selects.
template <class T>
io::MatrixStream value_norms_stream(model::ModelRun<T>& run, const std::vector<std::string>& tokens,
                                    std::optional<std::size_t> query);
/// value_weights (layers, n, n) or value_rollout (n, n).
template <class T>
io::MatrixStream value_summary_stream(model::ModelRun<T>& run, bool rollout);

}  // namespace attn::cli
