// attn/embedding: the notebook's embedded sentence and W_query, W_key, W_value to the bit
// through the seed protocol, and nn.Linear's weight transposed.
#include "attn/embedding.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "attn/tokenizer.hpp"
#include "support/reference_data.hpp"

namespace {

std::vector<float> flat(const xt::xtensor<float, 2>& m) {
    return {m.begin(), m.end()};
}

std::vector<std::uint64_t> notebook_bits(const char* name) {
    static const std::string json =
        attn::test::read_text_file(attn::test::data_path("raschka/notebook_seed123.json"));
    return attn::test::parse_hex_all(attn::test::json_tensor_array(json, name, "bits"));
}

}  // namespace

TEST_CASE("draw_projection: rand draws the notebook's W_query, W_key, W_value in order") {
    attn::TorchGenerator gen(123);
    const auto wq = attn::draw_projection(gen, 3, 2, attn::ProjectionInit::rand);
    const auto wk = attn::draw_projection(gen, 3, 2, attn::ProjectionInit::rand);
    const auto wv = attn::draw_projection(gen, 3, 4, attn::ProjectionInit::rand);
    CHECK(wv.shape(0) == 3);
    CHECK(wv.shape(1) == 4);
    attn::test::check_bits(flat(wq), notebook_bits("W_query"), "W_query");
    attn::test::check_bits(flat(wk), notebook_bits("W_key"), "W_key");
    attn::test::check_bits(flat(wv), notebook_bits("W_value"), "W_value");
}

TEST_CASE("draw_projection: linear is nn.Linear(d_in, d_out, bias=False).weight transposed") {
    attn::TorchGenerator a(7), b(7);
    const auto w = attn::draw_projection(a, 5, 3, attn::ProjectionInit::linear);  // (5, 3)
    const auto layer = attn::torch_linear<float>(b, 5, 3, false);                 // (3, 5)
    REQUIRE(w.shape(0) == 5);
    REQUIRE(w.shape(1) == 3);
    const float bound = static_cast<float>(1.0 / std::sqrt(5.0));
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
            CHECK(w(i, j) == layer.weight(j, i));
            CHECK(std::fabs(w(i, j)) <= bound);
        }
    CHECK(a.u32() == b.u32());  // the same number of draws
    CHECK_THROWS_AS(attn::draw_projection(a, 0, 3, attn::ProjectionInit::rand),
                    std::invalid_argument);
}

TEST_CASE("embedding: the notebook's sentence and weights through the seed protocol") {
    const auto tokens = attn::tokenize("Life is short, eat dessert first");
    const auto ids = attn::Vocabulary(tokens).ids(tokens);
    REQUIRE(ids == std::vector<std::size_t>{0, 4, 5, 2, 1, 3});
    attn::TorchGenerator gen(7);  // the seed protocol re-seeds: the state before does not matter
    gen.u32();
    const auto table = attn::draw_embedding_table(gen, 123, 50000, 3);  // (50000, 3)
    const auto x = attn::embed_rows(table, ids);                        // (6, 3)
    REQUIRE(x.shape(0) == 6);
    REQUIRE(x.shape(1) == 3);
    attn::test::check_bits(flat(x), notebook_bits("embedded_sentence"), "embedded_sentence");
    CHECK_THROWS_AS(attn::embed_rows(table, {50000}), std::invalid_argument);

    attn::WeightDraws draws;
    draws.d_in = 3, draws.d_query = 2, draws.d_key = 2, draws.d_value = 4;
    const auto w = attn::draw_attention_weights(gen, 123, draws, attn::ProjectionInit::rand);
    REQUIRE(w.query.size() == 1);
    CHECK(!w.out);
    attn::test::check_bits(flat(*w.query[0]), notebook_bits("W_query"), "W_query");
    attn::test::check_bits(flat(*w.key[0]), notebook_bits("W_key"), "W_key");
    attn::test::check_bits(flat(*w.value[0]), notebook_bits("W_value"), "W_value");

    // A given W_q draws nothing: W_k takes the numbers W_q would have had.
    draws.query = false;
    draws.d_key = 2;
    const auto skipped = attn::draw_attention_weights(gen, 123, draws, attn::ProjectionInit::rand);
    CHECK(!skipped.query[0]);
    attn::test::check_bits(flat(*skipped.key[0]), notebook_bits("W_query"), "W_key in W_q's place");
}

TEST_CASE("embedding: heads draw in order, W_o last") {
    attn::WeightDraws draws;
    draws.heads = 2, draws.d_in = 4, draws.d_query = 3, draws.d_key = 3, draws.d_value = 2;
    draws.d_out = 5;
    attn::TorchGenerator gen(0), ref(0);
    const auto w = attn::draw_attention_weights(gen, 9, draws, attn::ProjectionInit::linear);
    ref.manual_seed(9);
    for (std::size_t h = 0; h < 2; ++h) {
        CHECK(flat(*w.query[h]) ==
              flat(attn::draw_projection(ref, 4, 3, attn::ProjectionInit::linear)));
        CHECK(flat(*w.key[h]) ==
              flat(attn::draw_projection(ref, 4, 3, attn::ProjectionInit::linear)));
        CHECK(flat(*w.value[h]) ==
              flat(attn::draw_projection(ref, 4, 2, attn::ProjectionInit::linear)));
    }
    REQUIRE(w.out);
    CHECK(w.out->shape(0) == 4);  // heads * d_value
    CHECK(w.out->shape(1) == 5);
    CHECK(flat(*w.out) == flat(attn::draw_projection(ref, 4, 5, attn::ProjectionInit::linear)));
    CHECK(gen.u32() == ref.u32());
}

TEST_CASE("embedding: with biases, each weight is followed by its bias (nn.Linear's order)") {
    attn::WeightDraws draws;
    draws.heads = 2, draws.d_in = 3, draws.d_query = 2, draws.d_key = 2, draws.d_value = 4;
    draws.d_out = 5, draws.bias = true;
    const auto bias_of = [](const xt::xtensor<float, 2>& row) {  // (1, d) -> d values
        return std::vector<float>(row.begin(), row.end());
    };
    const auto vec = [](const std::optional<xt::xtensor<float, 1>>& b) {
        REQUIRE(b);
        return std::vector<float>(b->begin(), b->end());
    };
    SUBCASE("rand: torch.rand(d_in, d), then torch.rand(d)") {
        attn::TorchGenerator gen(0), ref(0);
        const auto w = attn::draw_attention_weights(gen, 5, draws, attn::ProjectionInit::rand);
        ref.manual_seed(5);
        for (std::size_t h = 0; h < 2; ++h) {
            CHECK(flat(*w.query[h]) == flat(attn::torch_rand<float>(ref, 3, 2)));
            CHECK(vec(w.b_query[h]) == bias_of(attn::torch_rand<float>(ref, 1, 2)));
            CHECK(flat(*w.key[h]) == flat(attn::torch_rand<float>(ref, 3, 2)));
            CHECK(vec(w.b_key[h]) == bias_of(attn::torch_rand<float>(ref, 1, 2)));
            CHECK(flat(*w.value[h]) == flat(attn::torch_rand<float>(ref, 3, 4)));
            CHECK(vec(w.b_value[h]) == bias_of(attn::torch_rand<float>(ref, 1, 4)));
        }
        CHECK(flat(*w.out) == flat(attn::torch_rand<float>(ref, 8, 5)));
        CHECK(vec(w.b_out) == bias_of(attn::torch_rand<float>(ref, 1, 5)));
        CHECK(gen.u32() == ref.u32());
    }
    SUBCASE("linear: nn.Linear(d_in, d, bias=True): its weight transposed, then its bias") {
        attn::TorchGenerator gen(0), ref(0);
        const auto w = attn::draw_attention_weights(gen, 5, draws, attn::ProjectionInit::linear);
        ref.manual_seed(5);
        const auto layer = attn::torch_linear<float>(ref, 3, 2, true);
        const xt::xtensor<float, 2> wt = xt::transpose(layer.weight);
        CHECK(flat(*w.query[0]) == flat(wt));
        CHECK(vec(w.b_query[0]) == std::vector<float>(layer.bias.begin(), layer.bias.end()));
        const float bound = static_cast<float>(1 / std::sqrt(3.0));
        for (float b : vec(w.b_value[1])) CHECK(std::abs(b) <= bound);
    }
    SUBCASE("without biases, none") {
        draws.bias = false;
        attn::TorchGenerator gen(0);
        const auto w = attn::draw_attention_weights(gen, 5, draws, attn::ProjectionInit::rand);
        CHECK(!w.b_query[0]);
        CHECK(!w.b_out);
    }
}

TEST_CASE("word_table: known words' vectors, unknown ones zero or torch.randn after the seed") {
    // vectors of "a" (row 1) and "c" (row 0), 2 columns; "b" and "d" have none
    const std::vector<double> values{10, 11, 20, 21};
    const auto row = [](const std::string& w) -> std::optional<std::size_t> {
        if (w == "a") return 1;
        if (w == "c") return 0;
        return std::nullopt;
    };
    const std::vector<std::string> words{"a", "b", "c", "d"};
    attn::TorchGenerator gen(0);
    std::vector<std::string> unknown;
    const auto zero = attn::word_table(words, row, values, 2, false, gen, 5, unknown);
    CHECK(zero == xt::xtensor<double, 2>{{20, 21}, {0, 0}, {10, 11}, {0, 0}});
    CHECK(unknown == std::vector<std::string>{"b", "d"});
    unknown.clear();
    const auto random = attn::word_table(words, row, values, 2, true, gen, 5, unknown);
    attn::TorchGenerator again(0);
    again.manual_seed(5);
    const xt::xtensor<float, 2> draws = attn::torch_randn<float>(again, 2, 2);  // (unknowns, d)
    CHECK(xt::view(random, 0) == xt::view(zero, 0));
    CHECK(random(1, 0) == double(draws(0, 0)));
    CHECK(random(1, 1) == double(draws(0, 1)));
    CHECK(random(3, 1) == double(draws(1, 1)));
    CHECK(random(2, 1) == 11);
}

namespace {

// "Life 1 0 / is 0 1 / short 1 1" as word vectors, (3, 2).
attn::Embeddings three_words() {
    attn::Embeddings e;
    e.by_word = true;
    e.vectors.words = {"Life", "is", "short"};
    e.vectors.dim = 2;
    e.vectors.values = {1, 0, 0, 1, 1, 1};
    e.vectors.index();
    return e;
}

std::vector<double> rows(const attn::Sequence& s) {
    return {s.x.front().begin(), s.x.front().end()};
}

}  // namespace

TEST_CASE("embed_sentence: a table by id, row id of the sentence's sorted vocabulary") {
    attn::Embeddings e;
    e.table = {{10, 11}, {20, 21}, {30, 31}};  // (3, 2)
    attn::TorchGenerator gen(0);
    const attn::Sequence s =
        attn::embed_sentence("b, a b", {}, e, attn::UnknownWord::error, gen, 0);
    CHECK(s.tokens == std::vector<std::string>{"b", "a", "b"});
    CHECK(s.ids == std::vector<std::size_t>{1, 0, 1});
    CHECK(rows(s) == std::vector<double>{20, 21, 10, 11, 20, 21});  // (3, 2)

    try {
        attn::embed_sentence("a b c d", {}, e, attn::UnknownWord::error, gen, 0);
        FAIL("4 distinct tokens in a table of 3 rows");
    } catch (const attn::EmbeddingError& err) {
        CHECK(err.fault == attn::EmbeddingError::Fault::too_few_rows);
        CHECK(std::string(err.what()) ==
              "the sentence: 4 distinct tokens have ids 0..3, but the embedding table has 3 rows");
    }
    try {
        attn::embed_sentence(" , ", {}, e, attn::UnknownWord::error, gen, 0, "sentence 2");
        FAIL("no token");
    } catch (const attn::EmbeddingError& err) {
        CHECK(err.fault == attn::EmbeddingError::Fault::empty);
        CHECK(std::string(err.what()) == "sentence 2: empty sentence: no token remains");
    }
    attn::TokenizeOptions lower;
    lower.lowercase = lower.strip_punctuation = true;
    try {
        attn::embed_sentence("!?", lower, e, attn::UnknownWord::error, gen, 0);
        FAIL("no token after removing punctuation");
    } catch (const attn::EmbeddingError& err) {
        CHECK(std::string(err.what()) ==
              "the sentence: empty sentence: no token remains after removing punctuation");
    }
    CHECK(attn::embed_sentence("A! a", lower, e, attn::UnknownWord::error, gen, 0).tokens ==
          std::vector<std::string>{"a", "a"});
}

TEST_CASE("embed_sentence: word vectors; unknown words as error, zero or torch.randn rows") {
    const attn::Embeddings e = three_words();
    attn::TorchGenerator gen(5);
    CHECK(rows(attn::embed_sentence("short Life", {}, e, attn::UnknownWord::error, gen, 123)) ==
          std::vector<double>{1, 1, 1, 0});
    try {
        attn::embed_sentence("Life is eat dessert", {}, e, attn::UnknownWord::error, gen, 123);
        FAIL("eat and dessert have no vector");
    } catch (const attn::EmbeddingError& err) {
        CHECK(err.fault == attn::EmbeddingError::Fault::unknown_words);
        CHECK(err.unknown == std::vector<std::string>{"dessert", "eat"});  // vocabulary order
        CHECK(std::string(err.what()) == "the sentence: no vector for 'dessert', 'eat'");
    }
    CHECK(rows(attn::embed_sentence("Life is eat dessert", {}, e, attn::UnknownWord::zero, gen,
                                    123)) == std::vector<double>{1, 0, 0, 1, 0, 0, 0, 0});
    // torch.manual_seed(123); torch.randn(2, 2): row 0 for dessert, row 1 for eat (float32)
    const attn::Sequence r =
        attn::embed_sentence("Life is eat dessert", {}, e, attn::UnknownWord::random, gen, 123);
    const std::vector<float> drawn = {-0.3696345090866089f, -0.2404179722070694f,
                                      -0.11146711558103561f, 0.12036294490098953f};
    const std::vector<double> x = rows(r);
    REQUIRE(x.size() == 8);
    CHECK(x[0] == 1);
    CHECK(x[3] == 1);
    for (std::size_t k = 0; k < 4; ++k) CHECK(x[4 + k] == static_cast<double>(drawn[k]));
}
