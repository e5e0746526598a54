// add_prompt_divergence on the tiny real checkpoint (tests/data/models/gpt2): a model against
// itself is 0 everywhere, and float against double agrees with the divergences computed from
// both runs' held weights, hidden states and next-token distributions.
#include "attn/model/run_divergence.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "attn/model/run.hpp"
#include "io/safetensors.hpp"
#include "support/test_models.hpp"

TEST_CASE("add_prompt_divergence: a model against itself, and float against double") {
    const auto c = attn::test::model_config("gpt2");
    const auto ckpt =
        attn::io::Checkpoint::open_folder(std::string(ATTN_TEST_DATA_DIR) + "/models/gpt2");
    const std::vector<std::int64_t> ids{47, 34, 48, 83, 54, 9};
    const attn::model::DivergenceChoice all{true, true, true};

    attn::model::RunDivergence same(c.num_layers, c.num_heads);
    attn::model::add_prompt_divergence<float, float>(c, ckpt, c, ckpt, ids, all, same);
    CHECK(same.prompts == 1);
    for (const auto& d : same.weights) {
        CHECK(d.js() == 0.0);
        CHECK(d.top1() == 1.0);
        CHECK(d.max_abs == 0.0);
    }
    for (const double h : same.hidden) CHECK(h == 0.0);
    CHECK(same.next_kl() == 0.0);
    CHECK(same.next_same == 1);

    // float against double, twice: pooled means of equal prompts are the prompt's figures
    attn::model::RunDivergence r(c.num_layers, c.num_heads);
    attn::model::add_prompt_divergence<float, double>(c, ckpt, c, ckpt, ids, all, r);
    attn::model::add_prompt_divergence<float, double>(c, ckpt, c, ckpt, ids, all, r);
    CHECK(r.prompts == 2);
    std::vector<std::size_t> layers(c.num_layers), heads(c.num_heads);
    for (std::size_t k = 0; k < layers.size(); ++k) layers[k] = k;
    for (std::size_t h = 0; h < heads.size(); ++h) heads[h] = h;
    attn::model::ModelRun<float> fa(c, ckpt, ids, layers, heads, {false, true}, true);
    attn::model::ModelRun<double> db(c, ckpt, ids, layers, heads, {false, true}, true);
    const std::size_t n = ids.size();
    double largest = 0;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const auto& wa = fa.layer(l).weights;
        const auto& wb = db.layer(l).weights;
        for (std::size_t h = 0; h < heads.size(); ++h) {
            double js = 0, max_abs = 0;
            for (std::size_t i = 0; i < n; ++i) {
                std::vector<double> p(n), q(n);
                for (std::size_t j = 0; j < n; ++j) {
                    p[j] = wa[h](i, j);
                    q[j] = wb[h](i, j);
                    max_abs = std::max(max_abs, std::abs(p[j] - q[j]));
                }
                js += attn::js_divergence(p.data(), q.data(), n) / static_cast<double>(n);
            }
            const auto& d = r.weights[l * heads.size() + h];
            CHECK(d.max_abs == doctest::Approx(max_abs).epsilon(1e-3));
            CHECK(d.js() == doctest::Approx(js).epsilon(1e-3));
            CHECK(d.top1() == 1.0);
            largest = std::max(largest, max_abs);
        }
    }
    CHECK(largest > 0.0);  // float and double differ in the last bits
    CHECK(largest < 1e-5);
    fa.finish();
    db.finish();
    const std::vector<double> next_a(fa.next().begin(), fa.next().end());
    CHECK(r.next_kl() ==
          doctest::Approx(attn::kl_divergence(next_a.data(), db.next().data(), next_a.size()))
              .epsilon(1e-6));
    CHECK(r.next_same == 2);
    for (const double h : r.hidden) CHECK((h > 0.0 && h < 1e-5));
}
