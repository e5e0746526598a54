// The family forward's pieces against closed forms, and ModelRun's promises on a real tiny
// checkpoint (tests/data/models/gpt2): blocks after the last selected layer never read, a
// finished layer's tensors handed back, a second pass giving the first pass's numbers. The
// values against PyTorch are checked by tests/cli/attend_model_test.sh on every family.
#include "attn/model/run.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "attn/model/ops.hpp"
#include "io/safetensors.hpp"
#include "support/test_models.hpp"

using attn::WeightLayout;
using attn::model::Activation;
using attn::model::Matrix;

namespace {

// A checkpoint that records which tensors the forward reads and hands back.
class Recording final : public attn::runtime::TensorStore {
  public:
    explicit Recording(const attn::io::Checkpoint& c) : c_(c) {}
    attn::runtime::TensorView tensor(std::span<const std::string> names,
                                     std::span<const std::uint64_t> shape) const override {
        read.insert(names.front());
        return c_.tensor(names, shape);
    }
    void release(std::span<const std::string> names) const override {
        released.insert(names.front());
    }
    std::string stored_name(std::span<const std::string> names) const override {
        return c_.stored_name(names);
    }
    mutable std::set<std::string> read, released;

  private:
    const attn::io::Checkpoint& c_;
};

bool reads_layer(const std::set<std::string>& names, int layer) {
    const std::string stem = "h." + std::to_string(layer) + ".";
    for (const auto& n : names)
        if (n.rfind(stem, 0) == 0) return true;
    return false;
}

}  // namespace

TEST_CASE("layer_norm and rms_norm follow their definitions") {
    Matrix<double> x{{1.0, 2.0, 3.0, 6.0}};
    const double w[] = {1.0, 2.0, 1.0, 0.5}, b[] = {0.0, 1.0, 0.0, -1.0};
    const Matrix<double> y = attn::model::layer_norm(x, w, b, 1e-5);
    // mean 3, biased variance (4 + 1 + 0 + 9) / 4 = 3.5
    const double s = std::sqrt(3.5 + 1e-5);
    CHECK(y(0, 0) == doctest::Approx(-2.0 / s).epsilon(1e-14));
    CHECK(y(0, 1) == doctest::Approx(2.0 * -1.0 / s + 1.0).epsilon(1e-14));
    CHECK(y(0, 3) == doctest::Approx(0.5 * 3.0 / s - 1.0).epsilon(1e-14));
    const Matrix<double> r = attn::model::rms_norm(x, w, 1e-6);
    // mean of squares (1 + 4 + 9 + 36) / 4 = 12.5, no mean subtracted, no bias
    const double q = std::sqrt(12.5 + 1e-6);
    CHECK(r(0, 1) == doctest::Approx(2.0 * 2.0 / q).epsilon(1e-14));
    CHECK(r(0, 3) == doctest::Approx(0.5 * 6.0 / q).epsilon(1e-14));
}

TEST_CASE("activations: erf and tanh GELU, SiLU, ReLU at known points") {
    Matrix<double> x{{1.0, -2.0}};
    Matrix<double> g = x, t = x, s = x, r = x;
    attn::model::activate(g, Activation::gelu);
    attn::model::activate(t, Activation::gelu_tanh);
    attn::model::activate(s, Activation::silu);
    attn::model::activate(r, Activation::relu);
    CHECK(g(0, 0) == doctest::Approx(0.8413447460685429).epsilon(1e-15));
    CHECK(g(0, 1) == doctest::Approx(-0.04550026389635842).epsilon(1e-14));
    CHECK(t(0, 0) == doctest::Approx(0.8411919906082768).epsilon(1e-15));
    CHECK(s(0, 0) == doctest::Approx(0.7310585786300049).epsilon(1e-15));
    CHECK(r(0, 1) == 0.0);
    // SwiGLU: silu(a) * b
    Matrix<double> a{{1.0}}, bb{{3.0}};
    attn::model::gate(a, bb, Activation::silu);
    CHECK(a(0, 0) == doctest::Approx(3 * 0.7310585786300049).epsilon(1e-15));
}

TEST_CASE("tanh GELU and SiLU in float over the range a block sees, against their definitions") {
    // x / (1 + exp(-2u)) with the vector exp equals 0.5 x (1 + tanh(u)) to float rounding,
    // including where tanh saturates (x = -12: about -1e-32; x = 30: x itself)
    Matrix<float> t = Matrix<float>::from_shape({1, 4201}), s = t;
    for (std::size_t i = 0; i < t.size(); ++i) t(0, i) = s(0, i) = -12.0f + 0.01f * i;
    attn::model::activate(t, Activation::gelu_tanh);
    attn::model::activate(s, Activation::silu);
    double worst_t = 0, worst_s = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double x = -12.0f + 0.01f * i, u = std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x);
        const double gt = x / (1 + std::exp(-2 * u)), gs = x / (1 + std::exp(-x));
        worst_t = std::max(worst_t, std::abs(t(0, i) - gt) / std::max(1.0, std::abs(gt)));
        worst_s = std::max(worst_s, std::abs(s(0, i) - gs) / std::max(1.0, std::abs(gs)));
    }
    CHECK(worst_t < 4e-7);
    CHECK(worst_s < 4e-7);
}

TEST_CASE("feed_forward and gated_feed_forward: down(act(up x)) and down(act(gate x) * up x)") {
    const Matrix<double> x{{1.0, -1.0}};
    const double up[] = {1, 0, 0, 1}, gate_w[] = {2, 0, 0, 2}, down[] = {1, 1};  // (2,2) (1,2)
    using attn::model::dense;
    Matrix<double> plain{{0.25}}, gated{{0.25}};  // the residual stream they are added to
    attn::model::feed_forward(plain, x, dense(up, 2, 2, WeightLayout::out_in), Activation::relu,
                              dense(down, 1, 2, WeightLayout::out_in));
    CHECK(plain(0, 0) == 1.25);  // 0.25 + relu(1) + relu(-1)
    attn::model::gated_feed_forward(gated, x, dense(gate_w, 2, 2, WeightLayout::out_in),
                                    dense(up, 2, 2, WeightLayout::out_in), Activation::relu,
                                    dense(down, 1, 2, WeightLayout::out_in));
    CHECK(gated(0, 0) == 2.25);  // 0.25 + relu(2) * 1 + relu(-2) * -1
}

TEST_CASE("linear reads Conv1D (in, out) and nn.Linear (out, in) weights alike") {
    const Matrix<double> x{{1.0, 2.0}, {3.0, 4.0}};
    const double in_out[] = {1, 2, 3, 4, 5, 6};  // (2, 3)
    const double out_in[] = {1, 4, 2, 5, 3, 6};  // its transpose (3, 2)
    const double bias[] = {0.5, 0, -0.5};
    const auto a =
        attn::model::linear(x, attn::model::dense(in_out, 2, 3, WeightLayout::in_out, bias));
    const auto b =
        attn::model::linear(x, attn::model::dense(out_in, 3, 2, WeightLayout::out_in, bias));
    CHECK(a == b);
    CHECK(a(1, 2) == 3 * 3 + 4 * 6 - 0.5);
}

TEST_CASE("ModelRun reads no block after the last selected one and hands finished ones back") {
    const auto c = attn::test::model_config("gpt2");
    const auto ckpt =
        attn::io::Checkpoint::open_folder(std::string(ATTN_TEST_DATA_DIR) + "/models/gpt2");
    const std::vector<std::int64_t> ids{47, 34, 48, 83, 54};
    Recording src(ckpt);
    attn::model::ModelRun<float> run(c, src, ids, {0}, {0, 1, 2, 3}, {false, true}, false);
    const auto first = run.layer(0).weights;
    run.finish();
    CHECK(reads_layer(src.read, 0));
    CHECK_FALSE(reads_layer(src.read, 1));
    CHECK_FALSE(reads_layer(src.read, 2));
    CHECK(src.released.count("h.0.attn.c_attn.weight") == 1);
    CHECK(run.hidden().size() == 2);

    // The next token needs every block, though only layer 0 is shown.
    Recording all(ckpt);
    attn::model::ModelRun<float> lm(c, all, ids, {0}, {0}, {}, true);
    lm.finish();
    CHECK(reads_layer(all.read, 2));
    CHECK(lm.next().size() == c.vocab_size);
}

TEST_CASE("ModelRun records hidden and context only when asked, the next token the same") {
    const auto c = attn::test::model_config("gpt2");
    const auto ckpt =
        attn::io::Checkpoint::open_folder(std::string(ATTN_TEST_DATA_DIR) + "/models/gpt2");
    const std::vector<std::int64_t> ids{47, 34, 48, 83, 54};
    Recording src(ckpt);
    attn::model::ModelRun<float> all(c, src, ids, {0, 1}, {0}, {}, true);
    attn::model::ModelRun<float> bare(c, src, ids, {0, 1}, {0}, {}, true);
    bare.record(false, false);
    all.finish();
    bare.finish();
    CHECK(all.hidden().size() == 3);
    CHECK(all.context().size() == 2);
    CHECK(bare.hidden().empty());
    CHECK(bare.context().empty());
    CHECK(bare.next() == all.next());
}

TEST_CASE("ModelRun: asking for an earlier layer again recomputes the same numbers") {
    const auto c = attn::test::model_config("gpt2");
    const auto ckpt =
        attn::io::Checkpoint::open_folder(std::string(ATTN_TEST_DATA_DIR) + "/models/gpt2");
    Recording src(ckpt);
    attn::model::ModelRun<double> run(c, src, {7, 8, 9}, {0, 2}, {1}, {true, true}, false);
    const auto w0 = run.layer(0).weights[1];
    const auto s2 = run.layer(1).scaled_scores[1];
    CHECK(run.layer(0).weights[1] == w0);  // run again from the embedding
    CHECK(run.layer(1).scaled_scores[1] == s2);
    run.finish();
    REQUIRE(run.hidden().size() == 3);
    REQUIRE(run.context().size() == 2);
    CHECK(run.context()[0].size() == 1);
    // weights rows sum to 1, causal: nothing above the diagonal
    for (std::size_t i = 0; i < 3; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < 3; ++j) sum += w0(i, j);
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-14));
        for (std::size_t j = i + 1; j < 3; ++j) CHECK(w0(i, j) == 0.0);
    }
}
