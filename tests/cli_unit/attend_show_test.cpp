#include "cli/attend_show.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include "attn/model/config.hpp"
#include "cli/attend.hpp"
#include "cli/attend_model.hpp"
#include "cli/errors.hpp"
#include "support/text.hpp"

namespace {

using attn::cli::attend_arrays;
using attn::cli::AttendArray;
using attn::test::contains;

// The names of the rows that give the run (random: shape, model: model_shape) a shape.
std::set<std::string> rows_of(bool model) {
    std::set<std::string> names;
    for (const AttendArray& a : attend_arrays())
        if (!(model ? a.model_shape : a.shape).empty()) names.insert(a.name);
    return names;
}

// A gpt2 config: a family with an LM head.
const attn::model::ModelConfig& gpt2() {
    static const attn::model::ModelConfig c =
        attn::model::parse_config(R"({"model_type": "gpt2"})");
    return c;
}

bool model_accepts(const std::string& name) {
    try {
        attn::cli::parse_model_show(name, gpt2());
    } catch (const attn::cli::UsageError&) {
        return false;
    }
    return true;
}

}  // namespace

TEST_CASE("attend_arrays: one row per array, each shown by at least one run") {
    std::set<std::string> names;
    for (const AttendArray& a : attend_arrays()) {
        CHECK(names.insert(a.name).second);
        CHECK((!a.shape.empty() || !a.model_shape.empty()));
        CHECK(!a.help.empty());
        CHECK(&attn::cli::attend_array(a.item) == &a);
    }
    CHECK(names.size() == 29);
}

TEST_CASE("attend_arrays: the random model shows exactly the rows with its shape") {
    std::set<std::string> shown;
    for (const auto& e : attn::cli::attend_show_table<float>()) {
        shown.insert(e.name);
        CHECK(e.shape == attn::cli::attend_array(e.item).shape);
    }
    CHECK(shown == rows_of(false));
    CHECK(rows_of(false).count("hidden") == 0);
    CHECK(rows_of(false).count("scaled_scores") == 1);
}

TEST_CASE("attend_arrays: --model shows exactly the rows with its shape") {
    for (const AttendArray& a : attend_arrays())
        CHECK_MESSAGE(model_accepts(a.name) == !a.model_shape.empty(), a.name);
    using attn::cli::Show;
    const auto all = attn::cli::parse_model_show("all", gpt2()).shown;
    CHECK(all == std::vector<Show>{Show::tokens, Show::ids, Show::scores, Show::weights,
                                   Show::context, Show::hidden, Show::positions, Show::next,
                                   Show::head_stats, Show::offsets, Show::mean_weights,
                                   Show::rollout});
}

TEST_CASE("attend_arrays: all of the random model, by what the run has") {
    using attn::cli::Show;
    namespace need = attn::cli::need;
    const auto all = attn::cli::parse_show("all", need::tokens | need::projections);
    CHECK(all == std::vector<Show>{Show::vocabulary, Show::tokens, Show::embeddings, Show::queries,
                                   Show::keys, Show::values, Show::scores, Show::weights,
                                   Show::context});
    const auto binary = attn::cli::parse_show("all", need::tokens | need::binary | need::scheme);
    CHECK(std::find(binary.begin(), binary.end(), Show::ids) != binary.end());
    CHECK(std::find(binary.begin(), binary.end(), Show::masked_scores) != binary.end());
    CHECK(std::find(binary.begin(), binary.end(), Show::head_stats) == binary.end());
}

TEST_CASE("attend_show_help: every array, with its shape in each run") {
    const std::string help = attn::cli::attend_show_help();
    for (const AttendArray& a : attend_arrays()) CHECK(contains(help, "  " + a.name + " "));
    CHECK(contains(help, "  scores ([b,] [H,] n, n), --model (layers, heads, n, n): omega"));
    CHECK(contains(help, "  hidden --model only (layers + 1, n, d): "));
    CHECK(contains(help, "  vocabulary (V, 1): sorted"));
}
