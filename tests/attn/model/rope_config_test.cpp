#include "attn/model/rope_config.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

using attn::model::ConfigError;
using attn::model::parse_rope;
using attn::model::RopeContext;
using attn::positions::RopeScaling;
using json = nlohmann::json;

namespace {

RopeContext context(std::size_t head_dim, std::size_t max_positions, std::string layer = "") {
    RopeContext c;
    c.head_dim = head_dim;
    c.max_positions = max_positions;
    c.layer_type = std::move(layer);
    return c;
}

std::string error_of(const char* text, const RopeContext& c) {
    try {
        parse_rope(json::parse(text), c);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "accepted";
}

// microsoft/Phi-3-mini-128k-instruct's keys (factors cut to d/2 = 4 of a head_dim 8 here).
const char* kPhi3 = R"({"max_position_embeddings": 131072,
  "original_max_position_embeddings": 4096, "rope_theta": 10000.0, "partial_rotary_factor": 1.0,
  "rope_scaling": {"type": "longrope", "short_factor": [1.0, 1.05, 1.1, 1.2],
                   "long_factor": [1.0, 1.5, 4.0, 30.0]}})";

}  // namespace

TEST_CASE("rope_config: rope_scaling with rope_theta, and transformers 5's rope_parameters") {
    const auto old_form = parse_rope(json::parse(R"({"rope_theta": 500000.0, "rope_scaling":
        {"rope_type": "yarn", "factor": 4.0, "attention_factor": 1.2, "mscale": 0.5,
         "mscale_all_dim": 1.0, "beta_fast": 0, "truncate": false}})"),
                                     128, 32768);
    CHECK(old_form.d == 128);
    CHECK(old_form.base == 500000.0);
    CHECK(old_form.scaling == RopeScaling::yarn);
    CHECK(*old_form.attention_factor == 1.2);
    CHECK(*old_form.mscale == 0.5);
    CHECK(*old_form.mscale_all_dim == 1.0);
    CHECK(!old_form.beta_fast);  // `or 32`: 0 is the default
    CHECK(!old_form.truncate);
    CHECK(*old_form.original_max_position_embeddings == 32768.0);  // max_position_embeddings
    // rope_parameters' own rope_theta wins over a top-level one; "factor": null is max / M.
    const auto new_form = parse_rope(json::parse(R"({"rope_theta": 1.0, "rope_parameters":
        {"rope_type": "yarn", "rope_theta": 150000.0, "factor": null,
         "original_max_position_embeddings": 4096}})"),
                                     64, 131072);
    CHECK(new_form.base == 150000.0);
    CHECK(*new_form.factor == 32.0);
    CHECK(*new_form.original_max_position_embeddings == 4096.0);
    // rope_scaling wins over rope_parameters (transformers: rope_scaling or rope_parameters).
    const auto both = parse_rope(json::parse(R"({"rope_scaling": {"type": "linear", "factor": 2},
        "rope_parameters": {"rope_type": "default"}})"),
                                 8, 64);
    CHECK(both.scaling == RopeScaling::linear);
    CHECK(parse_rope(json::parse(R"({"rope_parameters": {"rope_type": "default"}})"), 8, 64)
              .scaling == RopeScaling::none);
}

TEST_CASE("rope_config: Phi-3's longrope: top-level M, factor max / M, partial rotary") {
    const auto p = parse_rope(json::parse(kPhi3), context(8, 131072));
    CHECK(p.scaling == RopeScaling::longrope);
    CHECK(p.d == 8);
    CHECK(*p.original_max_position_embeddings == 4096.0);
    CHECK(*p.factor == 32.0);
    CHECK(p.short_factor == std::vector<double>{1.0, 1.05, 1.1, 1.2});
    CHECK(p.long_factor.back() == 30.0);
    CHECK(!p.attention_factor);
    json half = json::parse(kPhi3);
    half["partial_rotary_factor"] = 0.5;
    half["rope_scaling"]["short_factor"] = {1.0, 2.0};
    half["rope_scaling"]["long_factor"] = {1.0, 2.0};
    CHECK(parse_rope(half, context(8, 131072)).d == 4);
    RopeContext neox = context(16, 2048);  // gpt_neox's rotary_pct, passed by the family
    neox.partial_rotary_factor = 0.25;
    CHECK(parse_rope(json::parse("{}"), neox).d == 4);
    // A family's class default for M (Phi3Config's 4096) when config.json has none.
    RopeContext phi = context(8, 8192);
    phi.original_max_positions = 2048;
    json no_m = json::parse(kPhi3);
    no_m.erase("original_max_position_embeddings");
    CHECK(*parse_rope(no_m, phi).factor == 4.0);
}

TEST_CASE("rope_config: rope_parameters nested by layer type, one read per type") {
    const json gemma3 = json::parse(R"({"rope_parameters": {
        "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
        "sliding_attention": {"rope_type": "default"}}, "rope_theta": 10000.0})");
    CHECK(attn::model::rope_layer_types(gemma3) ==
          std::vector<std::string>{"full_attention", "sliding_attention"});
    CHECK(attn::model::rope_layer_types(json::parse(kPhi3)).empty());
    const auto full = parse_rope(gemma3, context(256, 131072, "full_attention"));
    CHECK(full.scaling == RopeScaling::linear);
    CHECK(full.base == 1000000.0);
    const auto local = parse_rope(gemma3, context(256, 131072, "sliding_attention"));
    CHECK(local.scaling == RopeScaling::none);
    CHECK(local.base == 10000.0);  // the top-level rope_theta
    RopeContext other = context(256, 131072, "global");
    CHECK(error_of(gemma3.dump().c_str(), other) ==
          "rope_parameters.global: absent; the layer types are full_attention, sliding_attention");
    CHECK(error_of(gemma3.dump().c_str(), context(256, 1))
              .rfind("rope_parameters: holds one dictionary per layer type (full_attention, "
                     "sliding_attention)",
                     0) == 0);
    // A flat dictionary serves every layer type.
    CHECK(parse_rope(json::parse(kPhi3), context(8, 131072, "sliding_attention")).d == 8);
}

TEST_CASE("rope_config: errors name the key, the value and the accepted range") {
    const auto c = context(8, 64);
    CHECK(error_of(R"({"rope_scaling": {"type": "longrope", "short_factor": [1, 1],
        "long_factor": [1, 1, 1, 1]}})",
                   c) == "rope_scaling.short_factor: 2 numbers; longrope needs d/2 = 4");
    CHECK(error_of(R"({"rope_scaling": {"type": "longrope", "short_factor": [1, 1, "x", 1],
        "long_factor": [1, 1, 1, 1]}})",
                   c) == "rope_scaling.short_factor: element 2 is \"x\", not a number");
    CHECK(error_of(R"({"rope_scaling": {"type": "longrope", "long_factor": [1, 1, 1, 1]}})", c) ==
          "rope_scaling.short_factor: required by longrope scaling");
    CHECK(error_of(R"({"rope_parameters": {"rope_type": "yarn", "factor": 2,
        "attention_factor": -1}})",
                   c) == "rope_parameters.attention_factor: -1 is not greater than 0");
    CHECK(error_of(R"({"rope_parameters": {"rope_type": "yarn", "factor": 2, "mscale": -2}})", c) ==
          "rope_parameters.mscale: -2 is not a number >= 0");
    CHECK(error_of(R"({"rope_parameters": {"rope_type": "yarn", "factor": 2, "truncate": 1}})",
                   c) == "rope_parameters.truncate: 1 is not true or false");
    CHECK(error_of(R"({"rope_parameters": {"rope_type": "yarn"}})", c) ==
          "rope_parameters.factor: required by yarn scaling");
    CHECK(error_of(R"({"rope_parameters": {"rope_type": "yarn", "rope_theta": 1}})", c) ==
          "rope_parameters.rope_theta: 1 is not a finite number greater than 1");
    CHECK(error_of(R"({"partial_rotary_factor": 1.5})", c) ==
          "partial_rotary_factor: 1.5 is not in (0, 1]");
    CHECK(error_of(R"({"partial_rotary_factor": 0.375})", c) ==
          "partial_rotary_factor: d = int(head_dim 8 x 0.375) = 3 is not an even number >= 2 "
          "(rotary pairs)");
    CHECK(error_of(R"({"original_max_position_embeddings": 0.5, "rope_scaling":
        {"type": "yarn", "factor": 2}})",
                   c) == "original_max_position_embeddings: 0.5 is not at least 1");
    CHECK(error_of(R"({"rope_scaling": {"type": "su"}})", c) ==
          "rope_scaling.type: 'su' is not a scaling attn computes (default, linear, dynamic, "
          "yarn, longrope, llama3)");
    CHECK(error_of(R"({"rope_scaling": [1]})", c) == "rope_scaling: an array is not an object");
}
