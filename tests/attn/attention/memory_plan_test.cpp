// attn::run_plan: a run of several sequences counted as the sum of their layers' memory_plan,
// batch elements and the unpermuted twin included, plus the weights once and the streamed row
// blocks; sequence_run_plan's held and streamed widths; the peak of making the weights; the
// automatic path's threshold.
#include "attn/attention/memory_plan.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "runtime/memory_budget.hpp"
#include "support/throws.hpp"

namespace {

attn::LayerShape widths() {
    attn::LayerShape s;
    s.d_in = 8, s.heads = 2, s.kv_heads = 2, s.d_k = 4, s.d_v = 4, s.d_out = 8;
    return s;
}

std::uint64_t layer(std::size_t n, const attn::LayerShape& w, const attn::LayerOptions& o,
                    std::uint64_t held, std::size_t element = 4) {
    attn::LayerShape s = w;
    s.n = n;
    return attn::memory_plan(s, o, element, 0, held).total();
}

}  // namespace

TEST_CASE("run_plan: every batch element's layer, the held rows and the streamed blocks") {
    const attn::LayerShape w = widths();
    attn::LayerOptions o;
    const attn::RunPlan p = attn::run_plan(w, {{6, 0}, {10, 3}}, o, 4, 100, 10);
    CHECK(p.block_rows == 256);
    // one layer of 6 rows, three of 10; a block of the 10 rows there are of the widest (10) in
    // float, twice in double
    const std::uint64_t want = layer(6, w, o, 600) + 3 * layer(10, w, o, 1000) + 10 * 10 * (4 + 16);
    CHECK(p.bytes == want);
    // the direct path holds 2 x n x n x (3 x 4 + 4 + 1) bytes of matrices per layer
    CHECK(layer(10, w, o, 0) - layer(9, w, o, 0) >= 2 * (100 - 81) * 17);
}

TEST_CASE("run_plan: a refusal names the first sequence's n x n scores, or its tiled rows") {
    const attn::LayerShape w = widths();  // 2 heads
    attn::LayerOptions o;
    CHECK(attn::run_plan(w, {{6, 0}, {10, 3}}, o, 4, 100, 10).what == "2 x 6 x 6 attention scores");
    CHECK(attn::run_plan(w, {{10, 3}}, o, 4, 100, 10).what == "3 x 2 x 10 x 10 attention scores");
    o.path = attn::AttentionPath::tiled;
    CHECK(attn::run_plan(w, {{6, 0}}, o, 4, 100, 10).what == "tiled attention over 6 rows");
    CHECK(attn::run_plan(w, {{10, 3}}, o, 4, 100, 10).what == "tiled attention over 3 x 10 rows");
    CHECK(attn::run_plan(w, {}, o, 4, 100, 10).what.empty());
}

TEST_CASE("sequence_run_plan: X held three ways, rows streamed n or narrow wide") {
    attn::LayerShape w = widths();  // d_in 8, H d_v 8, d_out 8
    w.permuted = true;
    const attn::LayerOptions o;
    const std::vector<attn::SequenceShape> seqs = {{6, 0}, {12, 2}};
    // per row: d_in x (8 as given + 4 as attended + 8 unpermuted) bytes
    CHECK(attn::sequence_run_plan(w, seqs, o, 4, false).bytes ==
          attn::run_plan(w, seqs, o, 4, 8 * 20, 8).bytes);
    CHECK(attn::sequence_run_plan(w, seqs, o, 4, true).bytes ==
          attn::run_plan(w, seqs, o, 4, 8 * 20, 12).bytes);
    w.permuted = false, w.d_out = 30;
    CHECK(attn::sequence_run_plan(w, seqs, o, 8, true).bytes ==
          attn::run_plan(w, seqs, o, 8, 8 * 16, 30).bytes);
}

TEST_CASE("weights_bytes: W_q, W_k, W_v of every head, W_o and the biases, once a run") {
    attn::LayerShape w = widths();          // d_in 8, 2 heads of d_k 4, d_v 4; d_out 8
    CHECK(attn::weights_bytes(w, 4) == 0);  // Q = K = V = X, or q, k, v given
    w.weights = true;
    // W_q, W_k, W_v: 2 heads x 8 x 4 each
    CHECK(attn::weights_bytes(w, 4) == 3 * 64 * 4);
    w.output = true;  // W_o (2 x 4, 8)
    CHECK(attn::weights_bytes(w, 8) == (192 + 64) * 8);
    w.biases = true;  // one row more each: b_q, b_k, b_v 2 x 4, b_o 8
    CHECK(attn::weights_bytes(w, 8) == (192 + 24 + 64 + 8) * 8);
    // as AttentionWeights holds them: a W_k and a W_v per query head, whatever kv_heads says
    w.kv_heads = 1;
    CHECK(attn::weights_bytes(w, 8) == (192 + 24 + 64 + 8) * 8);
    // held once, whatever the sequences and batch elements
    const attn::LayerOptions o;
    attn::LayerShape bare = w;
    bare.weights = false;
    CHECK(attn::run_plan(w, {{6, 0}, {10, 3}}, o, 8, 100, 10).bytes ==
          attn::run_plan(bare, {{6, 0}, {10, 3}}, o, 8, 100, 10).bytes + (192 + 24 + 64 + 8) * 8);
}

TEST_CASE("making_weights_bytes: X and the files in double, the drawn in float32, all in T") {
    attn::LayerShape w = widths();  // d_in 8, 2 heads of d_k 4, d_v 4; d_out 8
    w.weights = w.output = true;    // 192 values of W_q, W_k, W_v and 64 of W_o
    // nothing given: 100 values of X as doubles, 256 drawn in float32, 256 in float
    CHECK(attn::making_weights_bytes(w, 100, 0, 4) == 100 * 8 + 256 * 4 + 256 * 4);
    // W_q given (64 values): held as doubles, and not drawn; 256 in double
    CHECK(attn::making_weights_bytes(w, 100, 64, 8) == 164 * 8 + 192 * 4 + 256 * 8);
    // every weight given: nothing drawn
    CHECK(attn::making_weights_bytes(w, 0, 256, 4) == 256 * 8 + 256 * 4);
    // Q = K = V = X: X alone
    CHECK(attn::making_weights_bytes(widths(), 100, 0, 4) == 800);
}

TEST_CASE("run_plan: with a permutation one unpermuted layer more per sequence") {
    attn::LayerShape w = widths();
    w.permuted = true;
    attn::LayerOptions o;
    const attn::RunPlan p = attn::run_plan(w, {{7, 2}}, o, 4, 0, 7);
    CHECK(p.bytes == 3 * layer(7, w, o, 0) + 7 * 7 * 20);
}

TEST_CASE("run_plan: the tiled path streams blocks of at most 2^22 values and 256 rows") {
    attn::LayerOptions o;
    o.path = attn::AttentionPath::tiled;
    CHECK(attn::run_plan(widths(), {{5000, 0}}, o, 4, 0, 5000).block_rows == 256);
    const attn::RunPlan wide = attn::run_plan(widths(), {{100000, 0}, {10, 0}}, o, 8, 0, 100000);
    CHECK(wide.block_rows == (std::size_t{1} << 22) / 100000);
    // both layers in double, tiled (no n x n matrix), and 41 rows of 100000 (T, then 2 doubles)
    CHECK(wide.bytes == layer(100000, widths(), o, 0, 8) + layer(10, widths(), o, 0, 8) +
                            std::uint64_t{41} * 100000 * 24);
    CHECK_THROWS_AS(
        attn::run_plan(widths(), {{std::size_t{1} << 40, 0}}, attn::LayerOptions{}, 8, 0, 1),
        attn::runtime::SizeOverflow);
}

TEST_CASE("run_plan: narrow arrays stream rows of their width, not of n") {
    attn::LayerOptions o;
    o.path = attn::AttentionPath::tiled;
    // 65,536 rows: 64 rows a block; context rows of 64 entries cost 64 x 64 x 20 bytes, not the
    // 64 x 65,536 x 20 (80 MiB) of a scores row block
    const attn::RunPlan narrow = attn::run_plan(widths(), {{65536, 0}}, o, 4, 0, 64);
    const attn::RunPlan wide = attn::run_plan(widths(), {{65536, 0}}, o, 4, 0, 65536);
    CHECK(narrow.block_rows == 64);
    CHECK(wide.block_rows == 64);
    CHECK(narrow.bytes == layer(65536, widths(), o, 0) + 64 * 64 * 20);
    CHECK(wide.bytes - narrow.bytes == std::uint64_t{64} * (65536 - 64) * 20);
}

TEST_CASE("automatic_path: tiled above 2^22 entries a head, n > 2048") {
    CHECK(attn::automatic_path(2048) == attn::AttentionPath::direct);
    CHECK(attn::automatic_path(2049) == attn::AttentionPath::tiled);
}
