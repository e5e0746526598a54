// attn attend's --show table: every array it can print, written once (name, shape, help,
// producer), and the parsing of a --show list against it.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"
#include "cli/attend_inputs.hpp"
#include "cli/attend_parameters.hpp"
#include "cli/attend_positions.hpp"
#include "cli/show_table.hpp"
#include "io/progress.hpp"

namespace attn::cli {

enum class Show {
    vocabulary,
    tokens,
    embeddings,
    queries,
    keys,
    values,
    positions,
    scores,
    scaled_scores,
    masked_scores,
    weights,
    context,
    equivariance,
    w_query,
    w_key,
    w_value,
    w_out
};

/// Everything computed for one sequence (a sentence, or the --input rows), per batch element.
template <class T>
struct SequenceRun {
    std::vector<xt::xtensor<T, 2>> x;  // X as attended (permuted with --permute), (n, d_in)
    std::vector<MaskOptions> masks;
    std::vector<LayerResult<T>> results;
    std::vector<xt::xtensor<T, 2>> equivariance;  // context(X[p]) - context(X)[p], (n, d_out)
    positions::PositionScheme<T> scheme;
    std::optional<double> scale;  // nullopt: omega / sqrt(d_k); 1 with --no-scale
};

/// What the arrays of one sentence (or of the --input rows) are made from.
template <class T>
struct SentenceArrays {
    const Sequence& s;
    const SequenceRun<T>& run;
    const Parameters<T>& par;
    const Dims& dims;
    std::optional<std::size_t> query;  // --query: only this row of Q, scores, weights, context
    std::string embed_title;           // what the embeddings are
    std::string mask_text;             // ", causal, valid length 3", ...
    std::shared_ptr<io::Progress> progress;  // counts the n x n rows streamed
};

template <class T>
const ShowTable<Show, SentenceArrays<T>>& attend_show_table();

/// "vocabulary, tokens, ..., w_out" in table order.
std::string show_name_list();

/// A --show list ("all", "scores,weights", ...) as items in order, without repeats; refuses
/// (UsageError naming --show) unknown names, token arrays of --input rows, w_out without
/// an output projection, positions without a scheme and equivariance without --permute.
/// "all" holds positions, scaled_scores and masked_scores with a scheme, equivariance with
/// --permute.
std::vector<Show> parse_show(const std::string& list, bool from_input, bool has_out_proj,
                             bool has_scheme = false, bool has_permute = false);

/// Where a sentence's row is shorter than the widest (keys it lacks) when several sentences
/// are one array: weights 0, else NaN.
double padding(Show item);

}  // namespace attn::cli
