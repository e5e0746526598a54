// attn attend's arrays, one table for both runs (attend_show.hpp).
#include "cli/attend_show.hpp"

#include <string>
#include <vector>

namespace attn::cli {

const std::vector<AttendArray>& attend_arrays() {
    using namespace need;
    using S = Show;
    // name, random model's shape, --model's shape, help, needs, in all, all's needs, asks
    static const std::vector<AttendArray> table{
        {S::vocabulary, "vocabulary", "(V, 1)", "", "sorted unique tokens and their ids", tokens},
        {S::tokens, "tokens", "(n, 1)", "(n)",
         "the sentence's tokens and their ids (npy, npz: the tokens, numpy strings); --model: "
         "the tokens",
         tokens},
        {S::ids, "ids", "(n,)", "(n)", "the token ids, int64 (sentence_int)", tokens, true, binary},
        {S::embeddings, "embeddings", "([b,] n, d_in)", "", "the rows attended over, X"},
        {S::queries, "queries", "([b,] [H,] n, d_q)", "", "Q = X W_query", 0, true, 0,
         ask::unrotated},
        {S::keys, "keys", "([b,] [H,] n, d_k)", "", "K = X W_key", 0, true, 0, ask::unrotated},
        {S::values, "values", "([b,] [H,] n, d_v)", "", "V = X W_value"},
        {S::positions, "positions", "(n, d) or ([H,] n, n)", "(n, d) or (heads, n, n)",
         "--scheme's P, rope's angles (n, d_k/2), or alibi/t5 bias; --model: its learned rows "
         "or its scheme's",
         scheme, true, 0, ask::rows},
        {S::scores, "scores", "([b,] [H,] n, n)", "(layers, heads, n, n)",
         "omega = Q K^T (rope: rotated q, k); --model: scaled q k^T plus the position bias, "
         "before masks (the random model's scaled_scores)",
         0, true, 0, ask::rows | ask::square},
        {S::scaled_scores, "scaled_scores", "([b,] [H,] n, n)", "",
         "omega / sqrt(d_k) + position bias, before masks", 0, true, scheme, ask::rows},
        {S::masked_scores, "masked_scores", "([b,] [H,] n, n)", "",
         "scaled scores after masks (-inf or --mask-value)", 0, true, scheme,
         ask::rows | ask::masked},
        {S::weights, "weights", "([b,] [H,] n, n)", "(layers, heads, n, n)",
         "softmax(omega / sqrt(d_k)), masked", 0, true, 0, ask::rows | ask::square},
        {S::context, "context", "([b,] n, H d_v or d_out)", "(layers, heads, n, d_head)",
         "weights V, heads side by side; --model: per head, before the output projection", 0, true,
         0, ask::contexts},
        {S::hidden, "hidden", "", "(layers + 1, n, d)",
         "the residual stream before the first selected layer, then after each", 0, true, 0,
         ask::hidden},
        {S::next, "next", "", "(10, 4)",
         "the 10 likeliest next tokens: rank, id, token, probability", lm_head},
        {S::equivariance, "equivariance", "([b,] n, d_out)", "",
         "context(X[p]) - context(X)[p] (--permute p)", permute},
        {S::w_query, "w_query", "([H,] d_in, d_q)", "", "W_query of each head", projections, false},
        {S::w_key, "w_key", "([H,] d_in, d_k)", "", "W_key of each head", projections, false},
        {S::w_value, "w_value", "([H,] d_in, d_v)", "", "W_value of each head", projections, false},
        {S::w_out, "w_out", "(H d_v, d_out)", "", "W_o (--out-proj or --wo)", out_proj, false},
        {S::head_stats, "head_stats", "([b] H, 7)", "(layers x heads, 7)",
         "per head: entropy, mean distance, weight on the first, previous and own position", 0,
         true, layers, ask::summaries},
        {S::offsets, "offsets", "([b,] H, 2n-1)", "(layers, heads, 2n-1)",
         "mean weight at each offset j - i", 0, true, layers, ask::summaries},
        {S::mean_weights, "mean_weights", "([b,] n, n)", "(layers, n, n)",
         "weights, mean over the heads", 0, true, layers, ask::summaries | ask::square},
        {S::rollout, "rollout", "([b,] n, n)", "(n, n)",
         "rows of 0.5 mean_weights + 0.5 I, normalised (--model: over the selected layers)", 0,
         true, layers, ask::summaries | ask::square},
        {S::lens, "lens", "", "(layers x positions x top, 6)",
         "the logit lens: per layer and position (--position), the --top likeliest tokens of the "
         "final norm and unembedding of the layer's residual",
         0, false},
        {S::lens_next, "lens_next", "", "(layers, n-1)",
         "the probability each layer's lens gives the token at the next position", 0, false},
        {S::value_norms, "value_norms", "", "(layers, heads, n, n)",
         "||A_ij f_h(x_j)||: the weights times the norm of what the value carries through W_o", 0,
         false, 0, ask::rows | ask::square},
        {S::value_weights, "value_weights", "", "(layers, n, n)",
         "||sum_h A_ij f_h(x_j)|| over all the heads, rows normalised", 0, false, 0, ask::square},
        {S::value_rollout, "value_rollout", "", "(n, n)",
         "the rollout of value_weights (as rollout of mean_weights)", 0, false, 0, ask::square},
    };
    return table;
}

const AttendArray& attend_array(Show item) {
    for (const AttendArray& a : attend_arrays())
        if (a.item == item) return a;
    throw std::logic_error("attend: an array without a row in attend_arrays()");
}

std::string attend_show_help() {
    std::string text = "Arrays (--show; the random model's shape, then --model's):\n";
    for (const AttendArray& a : attend_arrays()) {
        std::string shapes = a.shape;
        if (!a.model_shape.empty())
            shapes += (shapes.empty() ? "--model only " : ", --model ") + a.model_shape;
        text += "  " + a.name + " " + shapes + ": " + a.help + "\n";
    }
    return text;
}

}  // namespace attn::cli
