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

/// The arrays of the -f html page over n tokens (show: --show, "" for the default): weights,
/// then value_norms (the head view's toggle) and lens (the table under the tokens, top 1 at
/// every position); by default all three, the lens left out at run time when the model has
/// none (T5's encoder, BERT without its MLM head), value_norms when the page holds them (twice
/// the weights within io::kMaxHtmlWeights; else a warning says it is left out). UsageError
/// naming --show for another array, --top and --position.
ModelArrays page_arrays(const AttendModelOptions& opt, const std::string& show,
                        const model::ModelConfig& c, std::size_t n);

/// lens: rows (layer, position, rank) of the selected layers, the positions shown (--position
/// or all) and the top K; columns layer, position, rank, id, token, probability (binary
/// formats: the token column left out).
template <class T>
io::MatrixStream lens_stream(model::ModelRun<T>& run, const Spelling& spell, bool binary);
/// lens_tokens (rows of lens): each row's token as the tokenizer spells it, stored by npz as
/// numpy strings ('<U') beside lens's numbers.
template <class T>
io::MatrixStream lens_tokens_stream(model::ModelRun<T>& run, const Spelling& spell);
/// The html page's lens (layers, n): row k, column p the probability of layer k's likeliest
/// token at position p (lens with --top 1), its label the cell's text (ArrayInfo::strings);
/// columns labelled by `labels`, the tokens.
template <class T>
io::MatrixStream lens_table_stream(model::ModelRun<T>& run, const std::vector<std::string>& labels,
                                   const Spelling& spell);
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
