// attn::scaled_dot_product_attention, masks and multi-head attention: the notebook's numbers
// end to end from the torch generator, closed forms for masks and softmax, and d2l's shapes.
#include "attn/attention/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include "attn/attention/layer.hpp"
#include "attn/tokenizer.hpp"
#include "attn/torch_random.hpp"
#include "support/approx.hpp"
#include "support/reference_data.hpp"
#include "support/throws.hpp"

namespace {

using attn::test::require_allclose;

template <class T>
using Matrix = xt::xtensor<T, 2>;

const std::string& notebook_json() {
    static const std::string json =
        attn::test::read_text_file(attn::test::data_path("raschka/notebook_seed123.json"));
    return json;
}

std::vector<double> notebook(const char* name) {
    return attn::test::json_tensor_values(notebook_json(), name);
}

// One head's projections: W_q (d_in, d_k), W_k (d_in, d_k), W_v (d_in, d_v).
template <class T>
struct HeadWeights {
    Matrix<T> w_query, w_key, w_value;
};

// The notebook's inputs from the generator: embedded_sentence (6, 3), then after re-seeding
// 123, W_query (3, 2), W_key (3, 2), W_value (3, 4).
struct NotebookInputs {
    Matrix<float> x;
    HeadWeights<float> w;
};

NotebookInputs notebook_inputs() {
    const auto tokens = attn::tokenize("Life is short, eat dessert first");
    const auto ids = attn::Vocabulary(tokens).ids(tokens);  // [0, 4, 5, 2, 1, 3]
    attn::TorchGenerator gen(123);
    const Matrix<float> table = attn::torch_embedding(gen, 50000, 3);  // (50000, 3)
    NotebookInputs in;
    in.x = Matrix<float>::from_shape({ids.size(), 3});
    for (std::size_t i = 0; i < ids.size(); ++i) xt::row(in.x, i) = xt::row(table, ids[i]);
    gen.manual_seed(123);
    in.w.w_query = attn::torch_rand(gen, 3, 2);
    in.w.w_key = attn::torch_rand(gen, 3, 2);
    in.w.w_value = attn::torch_rand(gen, 3, 4);
    return in;
}

// MaskOptions built field by field: designated initializers that leave members out trip
// g++ 12's -Wmissing-field-initializers.
attn::MaskOptions opts_causal() {
    attn::MaskOptions m;
    m.causal = true;
    return m;
}
attn::MaskOptions opts_valid_len(std::size_t len, bool is_causal = false) {
    attn::MaskOptions m;
    m.causal = is_causal;
    m.valid_len = len;
    return m;
}

template <class T>
Matrix<T> random_matrix(attn::TorchGenerator& gen, std::size_t r, std::size_t c) {
    return attn::torch_randn<T>(gen, r, c);
}

template <class T>
void check_rows_sum_to_one(const Matrix<T>& w, const xt::xtensor<bool, 2>& fully_masked_rows) {
    for (std::size_t i = 0; i < w.shape(0); ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < w.shape(1); ++j) sum += w(i, j);
        INFO("row ", i);
        CHECK(sum == doctest::Approx(fully_masked_rows(i, 0) ? 0.0 : 1.0).epsilon(1e-6));
    }
}

// H heads of (d_in, d) matrices and W_o as attn::forward's layer (direct path, no positions)
// over the rows of X: the library's one multi-head path.
template <class T>
attn::LayerResult<T> multi_head(const Matrix<T>& X, const std::vector<HeadWeights<T>>& heads,
                                const std::optional<Matrix<T>>& w_out,
                                const attn::MaskOptions& mask = {}) {
    const auto view = [](const Matrix<T>& m) {
        return attn::Projection<T>{{m.data(), m.shape(0), m.shape(1), m.shape(1)}};
    };
    attn::LayerWeights<T> w;
    for (const auto& h : heads) {
        w.query.push_back(view(h.w_query));
        w.key.push_back(view(h.w_key));
        w.value.push_back(view(h.w_value));
    }
    if (w_out) w.output = view(*w_out);
    attn::LayerInput<T> in;
    in.x = {X.data(), X.shape(0), X.shape(1), X.shape(1)};
    attn::LayerOptions o;
    o.mask = mask;
    return attn::forward(in, w, attn::positions::PositionScheme<T>{}, o);
}

}  // namespace

TEST_CASE("attention: the notebook's numbers end to end from the torch generator") {
    const auto in = notebook_inputs();
    attn::test::check_bits(std::vector<float>(in.x.begin(), in.x.end()),
                           attn::test::parse_hex_all(attn::test::json_tensor_array(
                               notebook_json(), "embedded_sentence", "bits")),
                           "embedded_sentence");

    // the notebook's SelfAttention(d_in, d_k, d_v): attn::forward with one head
    const auto head = multi_head<float>(in.x, {in.w}, std::nullopt);
    constexpr double tol = 1e-6;
    require_allclose(head.keys[0], notebook("keys"), 0, tol, "keys");
    require_allclose(head.values[0], notebook("values"), 0, tol, "values");
    require_allclose(xt::row(head.queries[0], 1), notebook("query_2"), 0, tol, "query_2");
    require_allclose(xt::row(head.keys[0], 1), notebook("key_2"), 0, tol, "key_2");
    require_allclose(xt::row(head.values[0], 1), notebook("value_2"), 0, tol, "value_2");
    CHECK(head.scores[0](1, 4) ==
          doctest::Approx(notebook("omega_24").at(0)).epsilon(tol).scale(0));
    require_allclose(xt::row(head.scores[0], 1), notebook("omega_2"), 0, tol, "omega_2");
    require_allclose(xt::row(head.weights[0], 1), notebook("attention_weights_2"), 0, tol,
                     "attention_weights_2");
    require_allclose(xt::row(head.context[0], 1), notebook("context_vector_2"), 0, tol,
                     "context_vector_2");
    require_allclose(head.output, notebook("self_attention_output"), 0, tol,
                     "self_attention_output");

    SUBCASE("the same draws computed in float64 agree within 1e-6") {
        const Matrix<double> x = in.x;
        const HeadWeights<double> w{in.w.w_query, in.w.w_key, in.w.w_value};
        require_allclose(multi_head<double>(x, {w}, std::nullopt).output,
                         notebook("self_attention_output"), 0, tol,
                         "self_attention_output (float64)");
    }
}

TEST_CASE_TEMPLATE("attention: masked_softmax closed forms", T, float, double) {
    const double eps = std::is_same_v<T, float> ? 1e-6 : 1e-15;
    SUBCASE("softmax of [0, ln 2, ln 3] is [1, 2, 3] / 6") {
        const Matrix<T> s = {{T(0), T(std::log(2.0)), T(std::log(3.0))}};
        require_allclose(attn::masked_softmax(s), Matrix<double>{{1 / 6.0, 2 / 6.0, 3 / 6.0}}, 0,
                         eps);
    }
    SUBCASE("max subtraction: large scores do not overflow") {
        const Matrix<T> s = {{T(1000), T(1001)}, {T(-1000), T(-1001)}};
        const double e = std::exp(1.0);
        require_allclose(attn::masked_softmax(s),
                         Matrix<double>{{1 / (1 + e), e / (1 + e)}, {e / (1 + e), 1 / (1 + e)}}, 0,
                         eps);
    }
    SUBCASE("masked entries are exactly 0 and the rest renormalise") {
        const Matrix<T> s = {{T(1), T(2), T(3)}, {T(4), T(5), T(6)}};
        const xt::xtensor<bool, 2> m = {{false, true, false}, {true, true, true}};
        const auto w = attn::masked_softmax(s, m);
        CHECK(w(0, 1) == T(0));
        const double e2 = std::exp(2.0);
        require_allclose(xt::row(w, 0), std::vector<double>{1 / (1 + e2), 0, e2 / (1 + e2)}, 0,
                         eps);
        SUBCASE("a fully masked row is all zeros, never NaN") {
            for (std::size_t j = 0; j < 3; ++j) CHECK(w(1, j) == T(0));
        }
    }
    SUBCASE("fill mode (the book's -1e6)") {
        const Matrix<T> s = {{T(1), T(2), T(3)}, {T(4), T(5), T(6)}};
        const xt::xtensor<bool, 2> m = {{false, false, true}, {true, true, true}};
        const auto book = attn::masked_softmax(s, m, -1e6);
        const auto exact = attn::masked_softmax(s, m);
        // exp(-1e6 - max) underflows to 0: partly masked rows equal the exclusion mode.
        for (std::size_t j = 0; j < 3; ++j) CHECK(book(0, j) == exact(0, j));
        // A fully masked row is uniform in the book's version.
        for (std::size_t j = 0; j < 3; ++j)
            CHECK(book(1, j) == doctest::Approx(1 / 3.0).epsilon(eps));
        const auto minus_inf = attn::masked_softmax(s, m, -HUGE_VAL);
        for (std::size_t j = 0; j < 3; ++j) CHECK(minus_inf(1, j) == T(0));
        using attn::test::invalid_argument_of;
        CHECK(invalid_argument_of([&] { attn::masked_softmax(s, m, std::nan("")); }) ==
              "masked_softmax: nan is not a number or -inf");
        CHECK(invalid_argument_of([&] { attn::masked_softmax(s, m, HUGE_VAL); }) ==
              "masked_softmax: inf is not a number or -inf");
        CHECK(invalid_argument_of([] { attn::check_fill(-HUGE_VAL); }).empty());
        CHECK(invalid_argument_of([] { attn::check_fill(-1e6); }).empty());
    }
    SUBCASE("a mask of the wrong shape is refused") {
        const Matrix<T> s = xt::zeros<T>({2, 3});
        CHECK_THROWS_AS(attn::masked_softmax(s, attn::causal_mask(3, 3)), std::invalid_argument);
    }
}

TEST_CASE("attention: the masks") {
    const xt::xtensor<bool, 2> causal = {
        {false, true, true, true}, {false, false, true, true}, {false, false, false, true}};
    CHECK(attn::causal_mask(3, 4) == causal);
    const xt::xtensor<bool, 2> valid = {{false, false, true, true}, {false, false, true, true}};
    CHECK(attn::valid_length_mask(2, 4, 2) == valid);
    CHECK(attn::attention_mask(3, 4, opts_valid_len(2, true)) ==
          (causal || attn::valid_length_mask(3, 4, 2)));
    CHECK(attn::attention_mask(3, 4, {}) == xt::xtensor<bool, 2>(xt::zeros<bool>({3, 4})));
}

TEST_CASE("attention: masked(i, j) and masks_any, one entry of the masks") {
    attn::MaskOptions window;
    window.sliding_window = 2;  // query i sees keys i - 1 and i
    CHECK_FALSE(attn::masks_any({}));
    CHECK(attn::masks_any(window));
    CHECK(attn::masks_any(opts_valid_len(2, false)));
    CHECK(attn::masked(window, 3, 1));
    CHECK_FALSE(attn::masked(window, 3, 2));
    CHECK_FALSE(attn::masked(window, 3, 3));
    CHECK_FALSE(attn::masked({}, 0, 5));
    const attn::MaskOptions both = opts_valid_len(2, true);  // causal, keys j >= 2 hidden
    CHECK(attn::masked(both, 0, 1));
    CHECK_FALSE(attn::masked(both, 1, 1));
    CHECK(attn::masked(both, 3, 2));
    const xt::xtensor<bool, 2> mask = attn::attention_mask(4, 5, window);
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 5; ++j) CHECK(attn::masked(window, i, j) == mask(i, j));
}

TEST_CASE_TEMPLATE("attention: causal and valid-length masking in attention", T, float, double) {
    attn::TorchGenerator gen(7);
    const auto Q = random_matrix<T>(gen, 5, 4);  // (q, d_k)
    const auto K = random_matrix<T>(gen, 5, 4);  // (k, d_k)
    const auto V = random_matrix<T>(gen, 5, 3);  // (k, d_v)
    const auto none = xt::xtensor<bool, 2>(xt::zeros<bool>({5, 1}));

    SUBCASE("unmasked rows sum to 1") {
        const auto r = attn::scaled_dot_product_attention(Q, K, V);
        CHECK(r.scores.shape(0) == 5);
        CHECK(r.context.shape(1) == 3);
        check_rows_sum_to_one(r.weights, none);
        Matrix<double> scores_want = xt::zeros<double>({5, 5});  // Q K^T by hand, in double
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t j = 0; j < 5; ++j)
                for (std::size_t d = 0; d < 4; ++d) scores_want(i, j) += double(Q(i, d)) * K(j, d);
        require_allclose(r.scores, scores_want, 1e-6, 1e-6, "scores are Q K^T, unscaled");
    }
    SUBCASE("causal: the upper triangle is exactly 0") {
        const auto r = attn::scaled_dot_product_attention(Q, K, V, opts_causal());
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t j = i + 1; j < 5; ++j) CHECK(r.weights(i, j) == T(0));
        CHECK(r.weights(0, 0) == T(1));
        check_rows_sum_to_one(r.weights, none);
        // The first query sees only the first key: its context is V's first row.
        require_allclose(xt::row(r.context, 0), xt::row(V, 0), 0, 0, "context row 0");
    }
    SUBCASE("valid length: keys at positions >= L get weight exactly 0") {
        const auto r = attn::scaled_dot_product_attention(Q, K, V, opts_valid_len(2));
        for (std::size_t i = 0; i < 5; ++i)
            for (std::size_t j = 2; j < 5; ++j) CHECK(r.weights(i, j) == T(0));
        check_rows_sum_to_one(r.weights, none);
        // Equals attention over the first two keys and values only.
        const Matrix<T> K2 = xt::view(K, xt::range(0, 2), xt::all());
        const Matrix<T> V2 = xt::view(V, xt::range(0, 2), xt::all());
        const auto r2 = attn::scaled_dot_product_attention(Q, K2, V2);
        require_allclose(r.context, r2.context, 0, 1e-6, "valid_len 2 vs 2 keys");
        const auto all_valid = attn::scaled_dot_product_attention(Q, K, V, opts_valid_len(9));
        const auto unmasked = attn::scaled_dot_product_attention(Q, K, V);
        require_allclose(all_valid.weights, unmasked.weights, 0, 0, "valid_len > k");
    }
    SUBCASE("valid length 0: every row fully masked gives zero weights and zero context") {
        const auto r = attn::scaled_dot_product_attention(Q, K, V, opts_valid_len(0));
        require_allclose(r.weights, xt::zeros<double>({5, 5}), 0, 0, "weights");
        require_allclose(r.context, xt::zeros<double>({5, 3}), 0, 0, "context");
    }
}

TEST_CASE("attention: shape errors are std::invalid_argument") {
    const Matrix<float> a = xt::ones<float>({3, 2});
    const Matrix<float> b = xt::ones<float>({3, 4});
    const Matrix<float> c = xt::ones<float>({2, 4});
    const Matrix<float> empty = xt::ones<float>({0, 2});
    CHECK_THROWS_AS(attn::scaled_dot_product_attention(a, b, b), std::invalid_argument);
    CHECK_THROWS_AS(attn::scaled_dot_product_attention(a, a, c), std::invalid_argument);
    CHECK_THROWS_AS(attn::scaled_dot_product_attention(empty, a, a), std::invalid_argument);
    const HeadWeights<float> w{b, b, b};  // W_q (3, 4) needs d_in = 3
    CHECK_THROWS_AS(multi_head<float>(c, {w}, std::nullopt), std::invalid_argument);
}

TEST_CASE("attention: a layer without heads is refused") {
    const Matrix<float> X = xt::ones<float>({2, 3});
    CHECK_THROWS_AS(multi_head<float>(X, {}, std::nullopt), std::invalid_argument);
}

TEST_CASE_TEMPLATE("attention: head h of multi-head equals a single head with its matrices", T,
                   float, double) {
    attn::TorchGenerator gen(42);
    const std::size_t n = 6, d_in = 8, d_k = 3, H = 3;
    const auto X = random_matrix<T>(gen, n, d_in);  // (n, d_in)
    std::vector<HeadWeights<T>> heads;
    for (std::size_t h = 0; h < H; ++h)
        heads.push_back({random_matrix<T>(gen, d_in, d_k), random_matrix<T>(gen, d_in, d_k),
                         random_matrix<T>(gen, d_in, 2 + h)});  // d_v = 2, 3, 4
    const auto W_o = random_matrix<T>(gen, 2 + 3 + 4, 5);       // (sum d_v, d_out)
    const attn::MaskOptions mask = opts_causal();

    const auto mh = multi_head<T>(X, heads, W_o, mask);
    REQUIRE(mh.weights.size() == H);
    CHECK(mh.concat.shape(0) == n);
    CHECK(mh.concat.shape(1) == 9);
    std::size_t col = 0;
    for (std::size_t h = 0; h < H; ++h) {
        INFO("head ", h);
        // the head by hand: its projections, then the one scaled dot-product attention
        const Matrix<T> Q = xt::linalg::dot(X, heads[h].w_query),
                        K = xt::linalg::dot(X, heads[h].w_key),
                        V = xt::linalg::dot(X, heads[h].w_value);
        const auto single = attn::scaled_dot_product_attention(Q, K, V, mask);
        require_allclose(mh.weights[h], single.weights, 0, 0, "weights");
        require_allclose(mh.context[h], single.context, 0, 0, "context");
        const std::size_t d_v = single.context.shape(1);
        require_allclose(xt::view(mh.concat, xt::all(), xt::range(col, col + d_v)), single.context,
                         0, 0, "concat block");
        col += d_v;
    }
    // output = concat W_o, summed by hand in double.
    Matrix<double> want = xt::zeros<double>({n, std::size_t{5}});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t o = 0; o < 5; ++o)
            for (std::size_t c = 0; c < 9; ++c) want(i, o) += double(mh.concat(i, c)) * W_o(c, o);
    require_allclose(mh.output, want, 1e-5, 1e-5, "concat W_o");
    const auto no_proj = multi_head<T>(X, heads, std::nullopt, mask);
    require_allclose(no_proj.output, mh.concat, 0, 0, "no W_o: output = concat");
    const Matrix<T> bad_w_o = xt::ones<T>({8, 5});
    CHECK_THROWS_AS(multi_head<T>(X, heads, bad_w_o), std::invalid_argument);
}

TEST_CASE("attention: d2l's example, 100 hidden units, 5 heads, X = ones(2, 4, 100)") {
    // d2l: MultiHeadAttention(num_hiddens=100, num_heads=5), bias=False, valid_lens [3, 2];
    // attention(X, X, X, valid_lens) has shape (2, 4, 100). Head h uses column block h
    // (20 columns) of W_q^T, W_k^T, W_v^T (each an nn.Linear(100, 100) weight).
    const std::size_t batch = 2, n = 4, hidden = 100, H = 5, d_h = hidden / H;
    const std::size_t valid_lens[batch] = {3, 2};
    attn::TorchGenerator gen(0);
    const Matrix<float> Wq_t = xt::transpose(attn::torch_linear(gen, hidden, hidden, false).weight);
    const Matrix<float> Wk_t = xt::transpose(attn::torch_linear(gen, hidden, hidden, false).weight);
    const Matrix<float> Wv_t = xt::transpose(attn::torch_linear(gen, hidden, hidden, false).weight);
    const Matrix<float> Wo_t = xt::transpose(attn::torch_linear(gen, hidden, hidden, false).weight);
    std::vector<HeadWeights<float>> heads;
    for (std::size_t h = 0; h < H; ++h) {
        const std::size_t c0 = h * d_h;
        heads.push_back({Matrix<float>(xt::view(Wq_t, xt::all(), xt::range(c0, c0 + d_h))),
                         Matrix<float>(xt::view(Wk_t, xt::all(), xt::range(c0, c0 + d_h))),
                         Matrix<float>(xt::view(Wv_t, xt::all(), xt::range(c0, c0 + d_h)))});
    }
    const Matrix<float> X = xt::ones<float>({n, hidden});  // one batch element, (4, 100)

    xt::xtensor<float, 3> out = xt::zeros<float>({batch, n, hidden});
    for (std::size_t b = 0; b < batch; ++b) {
        INFO("batch ", b);
        const auto r = multi_head<float>(X, heads, Wo_t, opts_valid_len(valid_lens[b]));
        REQUIRE(r.output.shape(0) == n);
        REQUIRE(r.output.shape(1) == hidden);
        xt::view(out, b, xt::all(), xt::all()) = r.output;
        // All keys are equal, so every valid key gets 1 / valid_len and the rest 0.
        for (const auto& weights : r.weights)
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < n; ++j)
                    CHECK(weights(i, j) ==
                          doctest::Approx(j < valid_lens[b] ? 1.0 / valid_lens[b] : 0.0)
                              .epsilon(1e-6));
        // All queries are equal, so every output row is the same.
        for (std::size_t i = 1; i < n; ++i)
            require_allclose(xt::row(r.output, i), xt::row(r.output, 0), 0, 1e-6, "rows");
    }
    // X = ones: every value row is 1^T W_v^T, so every context row is too whatever the
    // weights (they sum to 1), and every output row is (1^T W_v^T) W_o^T, in long double here.
    std::vector<long double> v_row(hidden, 0.0L), want(hidden, 0.0L);
    for (std::size_t r = 0; r < hidden; ++r)
        for (std::size_t c = 0; c < hidden; ++c) v_row[c] += Wv_t(r, c);
    for (std::size_t c = 0; c < hidden; ++c)
        for (std::size_t o = 0; o < hidden; ++o) want[o] += v_row[c] * Wo_t(c, o);
    double worst = 0;
    for (std::size_t b = 0; b < batch; ++b)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t o = 0; o < hidden; ++o)
                worst = std::max(worst, double(std::fabs(out(b, i, o) - want[o])));
    CHECK(worst < 1e-5);
}

TEST_CASE_TEMPLATE("attention: masked_softmax of a NaN or +inf score is NaN, as PyTorch's", T,
                   float, double) {
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    // row 0: a NaN; row 1: +inf; row 2: every score NaN (what a NaN weight makes of q); row 3:
    // the NaN hidden by the mask, so the row is an ordinary softmax; row 4: -inf and a number
    const Matrix<T> s = {{1, nan, 2}, {1, inf, 2}, {nan, nan, nan}, {1, 2, nan}, {-inf, 0, 0}};
    const xt::xtensor<bool, 2> m = {{false, false, false},
                                    {false, false, false},
                                    {false, false, false},
                                    {false, false, true},
                                    {false, false, false}};
    const auto w = attn::masked_softmax(s, m);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j) CHECK(std::isnan(w(i, j)));
    CHECK(w(3, 2) == T(0));
    CHECK(w(3, 1) == doctest::Approx(std::exp(1.0) / (1 + std::exp(1.0))));
    CHECK(w(4, 0) == T(0));
    CHECK(w(4, 1) == doctest::Approx(0.5));
}
