// attn::TorchGenerator against PyTorch 1.13.1's own numbers (tests/data/torch-vectors,
// tests/data/raschka), compared on the exact bit patterns.
#include "attn/torch_random.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "support/reference_data.hpp"

namespace {

using attn::TorchGenerator;
using attn::TorchKernel;
using attn::test::check_bits;
using attn::test::CsvTable;
using attn::test::parse_hex_all;

constexpr TorchKernel kBothKernels[] = {TorchKernel::avx2, TorchKernel::scalar};

std::string kernel_name(TorchKernel k) {
    return k == TorchKernel::avx2 ? "avx2" : "scalar";
}

CsvTable vectors(const std::string& file) {
    return attn::test::read_csv(attn::test::data_path("torch-vectors/" + file));
}

template <class T>
std::vector<T> rand_n(TorchGenerator& gen, std::size_t n) {
    std::vector<T> out(n);
    gen.uniform_(std::span<T>(out));
    return out;
}

template <class T>
std::vector<T> randn_n(TorchGenerator& gen, std::size_t n) {
    std::vector<T> out(n);
    gen.normal_(std::span<T>(out));
    return out;
}

template <class T, std::size_t N>
std::vector<T> flat(const xt::xtensor<T, N>& t) {
    return std::vector<T>(t.data(), t.data() + t.size());
}

// Python's int seed as written in a CSV: negative values are two's complement.
std::uint64_t parse_seed(const std::string& text) {
    if (!text.empty() && text[0] == '-') return static_cast<std::uint64_t>(std::stoll(text));
    return std::stoull(text);
}

}  // namespace

TEST_CASE("torch_random: every reference file in torch-vectors has a test below") {
    const std::set<std::string> tested = {
        "embedding_seed123_50000x3_rows.csv",
        "embedding_seed123_50000x3_rows_capdefault.csv",
        "linear_seed0_100x100_nobias_first10.csv",
        "linear_seed0_100x100_nobias_first10_capdefault.csv",
        "linear_seed0_in3_out7_bias.csv",
        "mt19937_raw_u32_seed123.csv",
        "rand_f64_seed123_n10.csv",
        "rand_seed0_n10.csv",
        "rand_seed123_n10.csv",
        "rand_seeds_n5.csv",
        "rand_sequence_seed123.csv",
        "randn_cache_sequence_seed123.csv",
        "randn_f64_seed123_n20.csv",
        "randn_seed123_n37.csv",
        "randn_seed123_n37_capdefault.csv",
        "randn_seed123_n5.csv",
        "randint_cases.csv",
    };
    std::set<std::string> present;
    for (const auto& entry :
         std::filesystem::directory_iterator(attn::test::data_path("torch-vectors")))
        if (entry.path().extension() == ".csv") present.insert(entry.path().filename().string());
    for (const auto& f : present) CHECK_MESSAGE(tested.count(f) == 1, "untested file " << f);
    for (const auto& f : tested) CHECK_MESSAGE(present.count(f) == 1, "missing file " << f);
}

TEST_CASE("torch_random: sanity numbers of torch-rng.md section 8 (seed 123)") {
    TorchGenerator gen(123);
    CHECK(gen.initial_seed() == 123);
    CHECK(gen.u32() == 0xb24bcdfeu);
    CHECK(gen.u32() == 0xb6843d6du);
    CHECK(gen.u32() == 0x49406d7eu);

    gen.manual_seed(123);
    CHECK(gen.u64() == 0xb24bcdfeb6843d6dULL);

    // The doc prints 7 or 8 significant digits, which need not read back to the same float
    // (the exact bits are checked against the CSV files below): compare to 1e-7 relative.
    const auto printed = [](double v) { return doctest::Approx(v).epsilon(1e-7).scale(0.0); };
    gen.manual_seed(123);
    const auto r = rand_n<float>(gen, 3);
    CHECK(r[0] == printed(0.29611194));
    CHECK(r[1] == printed(0.5165623));
    CHECK(r[2] == printed(0.25167072));

    gen.manual_seed(123);
    const auto n2 = randn_n<float>(gen, 2);
    CHECK(n2[0] == printed(-0.11146712));
    CHECK(n2[1] == printed(0.12036294));
    CHECK_FALSE(gen.normal_cache().has_value());

    gen.manual_seed(123);
    const auto n37 = randn_n<float>(gen, 37);
    CHECK(n37[0] == printed(0.33737019));
    CHECK(n37[1] == printed(-0.17777722));
    CHECK(n37[2] == printed(-0.30352759));
}

TEST_CASE("torch_random: raw MT19937 words 0-9 and 620-629 after seed 123") {
    const auto table = vectors("mt19937_raw_u32_seed123.csv");
    const auto index = table.select("draw_index");
    const auto want = parse_hex_all(table.select("hex"));
    TorchGenerator gen(123);
    std::vector<std::uint32_t> words(630);
    for (auto& w : words) w = gen.u32();
    for (std::size_t r = 0; r < index.size(); ++r) {
        const std::size_t i = std::stoul(index[r]);
        INFO("draw ", i);
        CHECK(fmt::format("{:#010x}", words.at(i)) == fmt::format("{:#010x}", want[r]));
    }
}

TEST_CASE("torch_random: torch.rand float32 and float64, both kernels") {
    for (const TorchKernel k : kBothKernels) {
        INFO("kernel ", kernel_name(k));
        TorchGenerator gen(0, k);
        check_bits(rand_n<float>(gen, 10),
                   parse_hex_all(vectors("rand_seed0_n10.csv").select("bits")), "rand(10) seed 0");
        gen.manual_seed(123);
        check_bits(rand_n<float>(gen, 10),
                   parse_hex_all(vectors("rand_seed123_n10.csv").select("bits")),
                   "rand(10) seed 123");
        gen.manual_seed(123);
        check_bits(rand_n<double>(gen, 10),
                   parse_hex_all(vectors("rand_f64_seed123_n10.csv").select("bits")),
                   "rand(10, float64) seed 123");
    }
}

TEST_CASE("torch_random: only the seed mod 2^32 matters; negative seeds are two's complement") {
    const auto table = vectors("rand_seeds_n5.csv");
    const auto seed_texts = table.select("seed");
    std::vector<std::string> seeds;
    for (const auto& s : seed_texts)
        if (std::find(seeds.begin(), seeds.end(), s) == seeds.end()) seeds.push_back(s);
    CHECK(seeds.size() == 4);
    for (const auto& s : seeds) {
        TorchGenerator gen(parse_seed(s));
        CHECK(gen.initial_seed() == parse_seed(s));
        check_bits(rand_n<float>(gen, 5), parse_hex_all(table.select("bits", "seed", s)),
                   "rand(5) seed " + s);
    }
}

TEST_CASE("torch_random: torch.rand(3,2), rand(3,2), rand(3,4) in sequence (the W matrices)") {
    const auto table = vectors("rand_sequence_seed123.csv");
    for (const TorchKernel k : kBothKernels) {
        INFO("kernel ", kernel_name(k));
        TorchGenerator gen(123, k);
        const auto w_query = attn::torch_rand(gen, 3, 2);
        const auto w_key = attn::torch_rand(gen, 3, 2);
        const auto w_value = attn::torch_rand(gen, 3, 4);
        CHECK(w_value.shape(0) == 3);
        CHECK(w_value.shape(1) == 4);
        check_bits(flat(w_query), parse_hex_all(table.select("bits", "call", "rand(3,2)#1")),
                   "W_query");
        check_bits(flat(w_key), parse_hex_all(table.select("bits", "call", "rand(3,2)#2")),
                   "W_key");
        check_bits(flat(w_value), parse_hex_all(table.select("bits", "call", "rand(3,4)#3")),
                   "W_value");
        CHECK(gen.u32() == [] {
            TorchGenerator fresh(123);
            for (int i = 0; i < 24; ++i) fresh.u32();
            return fresh.u32();
        }());
    }
}

TEST_CASE("torch_random: element-wise randn (n < 16) and its Box-Muller cache") {
    for (const TorchKernel k : kBothKernels) {
        INFO("kernel ", kernel_name(k));
        TorchGenerator gen(123, k);
        check_bits(randn_n<float>(gen, 5),
                   parse_hex_all(vectors("randn_seed123_n5.csv").select("bits")), "randn(5)");
        CHECK(gen.normal_cache().has_value());  // 3 pairs for 5 values

        const auto seq = vectors("randn_cache_sequence_seed123.csv");
        gen.manual_seed(123);
        CHECK_FALSE(gen.normal_cache().has_value());
        const auto first = randn_n<float>(gen, 5);
        const auto second = randn_n<float>(gen, 3);
        check_bits(first, parse_hex_all(seq.select("bits", "call", "randn(5)")), "randn(5)");
        check_bits(second, parse_hex_all(seq.select("bits", "call", "randn(3)")),
                   "randn(3) after randn(5)");
    }
}

TEST_CASE("torch_random: the batched path neither reads nor clears the cache") {
    // randn(5); randn(16); randn(1): the last returns the value cached by the first.
    TorchGenerator gen(123);
    randn_n<float>(gen, 5);
    const double cached = gen.normal_cache().value();
    randn_n<float>(gen, 16);
    CHECK(gen.normal_cache().value() == cached);
    const auto one = randn_n<float>(gen, 1);
    CHECK(one[0] == static_cast<float>(cached));
    CHECK_FALSE(gen.normal_cache().has_value());
}

TEST_CASE("torch_random: batched randn(37), float32, AVX2 and default kernels") {
    TorchGenerator gen(123, TorchKernel::avx2);
    check_bits(randn_n<float>(gen, 37),
               parse_hex_all(vectors("randn_seed123_n37.csv").select("bits")), "randn(37) avx2");
    SUBCASE("it uses n + 16 = 53 draws") {
        TorchGenerator fresh(123);
        for (int i = 0; i < 53; ++i) fresh.u32();
        CHECK(gen.u32() == fresh.u32());
    }
    gen = TorchGenerator(123, TorchKernel::scalar);
    check_bits(randn_n<float>(gen, 37),
               parse_hex_all(vectors("randn_seed123_n37_capdefault.csv").select("bits")),
               "randn(37) scalar");
}

TEST_CASE("torch_random: batched randn(20) float64, both kernels") {
    for (const TorchKernel k : kBothKernels) {
        INFO("kernel ", kernel_name(k));
        TorchGenerator gen(123, k);
        check_bits(randn_n<double>(gen, 20),
                   parse_hex_all(vectors("randn_f64_seed123_n20.csv").select("bits")),
                   "randn(20, float64)");
    }
}

TEST_CASE("torch_random: nn.Embedding(50000, 3) seed 123, rows 0-9 and 49999") {
    const struct {
        TorchKernel kernel;
        const char* file;
    } cases[] = {{TorchKernel::avx2, "embedding_seed123_50000x3_rows.csv"},
                 {TorchKernel::scalar, "embedding_seed123_50000x3_rows_capdefault.csv"}};
    for (const auto& c : cases) {
        INFO("kernel ", kernel_name(c.kernel));
        const auto table = vectors(c.file);
        TorchGenerator gen(123, c.kernel);
        const auto weight = attn::torch_embedding(gen, 50000, 3);
        REQUIRE(weight.shape(0) == 50000);
        REQUIRE(weight.shape(1) == 3);
        std::vector<float> got;
        const auto rows = table.select("row");
        const auto cols = table.select("col");
        for (std::size_t r = 0; r < rows.size(); ++r)
            got.push_back(weight(std::stoul(rows[r]), std::stoul(cols[r])));
        check_bits(got, parse_hex_all(table.select("bits")), c.file);
        // 150000 = 16 * 9375: no tail, exactly 150000 draws.
        TorchGenerator fresh(123);
        for (int i = 0; i < 150000; ++i) fresh.u32();
        CHECK(gen.u32() == fresh.u32());
    }
}

TEST_CASE("torch_random: nn.Linear(100, 100, bias=False) weight[0, 0:10], both kernels") {
    const struct {
        TorchKernel kernel;
        const char* file;
    } cases[] = {{TorchKernel::avx2, "linear_seed0_100x100_nobias_first10.csv"},
                 {TorchKernel::scalar, "linear_seed0_100x100_nobias_first10_capdefault.csv"}};
    for (const auto& c : cases) {
        INFO("kernel ", kernel_name(c.kernel));
        TorchGenerator gen(0, c.kernel);
        const auto lin = attn::torch_linear(gen, 100, 100, false);
        CHECK(lin.weight.shape(0) == 100);
        CHECK(lin.weight.shape(1) == 100);
        CHECK(lin.bias.size() == 0);
        const std::vector<float> first10(lin.weight.data(), lin.weight.data() + 10);
        check_bits(first10, parse_hex_all(vectors(c.file).select("bits")), c.file);
    }
}

TEST_CASE("torch_random: nn.Linear(3, 7) weight (7, 3) then bias (7,)") {
    const auto table = vectors("linear_seed0_in3_out7_bias.csv");
    TorchGenerator gen(0);
    const auto lin = attn::torch_linear(gen, 3, 7);
    REQUIRE(lin.weight.shape(0) == 7);
    REQUIRE(lin.weight.shape(1) == 3);
    REQUIRE(lin.bias.size() == 7);
    check_bits(flat(lin.weight), parse_hex_all(table.select("bits", "param", "weight")),
               "Linear(3,7).weight");
    check_bits(flat(lin.bias), parse_hex_all(table.select("bits", "param", "bias")),
               "Linear(3,7).bias");
}

TEST_CASE("torch_random: the Linear weight bound is f32(1/sqrt(in)) after the cast") {
    const double a = std::sqrt(5.0);
    CHECK(a * a == 5.000000000000001);
    for (std::size_t in : {1u, 2u, 3u, 7u, 100u, 768u, 4096u, 200000u}) {
        INFO("in = ", in);
        CHECK(static_cast<float>(attn::torch_linear_weight_bound(in)) ==
              static_cast<float>(1.0 / std::sqrt(static_cast<double>(in))));
    }
}

TEST_CASE("torch_random: the notebook's embedding rows and W matrices (raschka JSON)") {
    const std::string json =
        attn::test::read_text_file(attn::test::data_path("raschka/notebook_seed123.json"));
    const auto want = [&](const char* name) {
        return parse_hex_all(attn::test::json_tensor_array(json, name, "bits"));
    };
    TorchGenerator gen(123);
    const auto table = attn::torch_embedding(gen, 50000, 3);
    check_bits(std::vector<float>(table.data(), table.data() + 30),
               want("embedding_weight_rows_0_9"), "embedding rows 0-9");
    check_bits(std::vector<float>(table.data() + 49999 * 3, table.data() + 50000 * 3),
               want("embedding_weight_last_row"), "embedding row 49999");

    gen.manual_seed(123);
    const auto w_query = attn::torch_rand(gen, 3, 2);
    const auto w_key = attn::torch_rand(gen, 3, 2);
    const auto w_value = attn::torch_rand(gen, 3, 4);
    check_bits(flat(w_query), want("W_query"), "W_query");
    check_bits(flat(w_key), want("W_key"), "W_key");
    check_bits(flat(w_value), want("W_value"), "W_value");
    check_bits(flat(w_query), want("sa_W_query"), "sa.W_query");
    check_bits(flat(w_key), want("sa_W_key"), "sa.W_key");
    check_bits(flat(w_value), want("sa_W_value"), "sa.W_value");
}

TEST_CASE("torch_random: a fresh generator starts at torch.Generator()'s seed") {
    TorchGenerator gen;
    CHECK(gen.initial_seed() == 67280421310721ULL);
    TorchGenerator same(67280421310721ULL % (1ULL << 32));
    CHECK(gen.u32() == same.u32());
}

TEST_CASE("torch_random: invalid parameters throw std::invalid_argument") {
    TorchGenerator gen(1);
    std::vector<float> v(4);
    CHECK_THROWS_AS(gen.uniform_(std::span<float>(v), 1.0, 0.0), std::invalid_argument);
    CHECK_THROWS_AS(gen.uniform_(std::span<float>(v), 0.0, INFINITY), std::invalid_argument);
    CHECK_THROWS_AS(gen.normal_(std::span<float>(v), 0.0, -1.0), std::invalid_argument);
    CHECK_THROWS_AS(gen.normal_(std::span<float>(v), NAN, 1.0), std::invalid_argument);
    CHECK_THROWS_AS(attn::torch_linear(gen, 0, 3), std::invalid_argument);
}

TEST_CASE("torch_random: randint draws u32 % high, and u64 % high from 2^32 (torch 1.13)") {
    const auto table = vectors("randint_cases.csv");
    std::set<std::pair<std::string, std::string>> cases;
    for (const auto& row : table.rows) cases.insert({row.at(0), row.at(1)});
    REQUIRE(cases.size() == 5);
    for (const auto& [seed, high] : cases) {
        std::vector<std::string> want;
        for (const auto& row : table.rows)
            if (row.at(0) == seed && row.at(1) == high) want.push_back(row.at(3));
        TorchGenerator gen(parse_seed(seed));
        const auto got = attn::torch_randint(gen, std::stoull(high), want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
            CHECK_MESSAGE(got[i] == std::stoll(want[i]), "seed ", seed, " high ", high, " #", i);
    }
    TorchGenerator gen(0);
    CHECK_THROWS_AS(attn::torch_randint(gen, 0, 1), std::invalid_argument);
}
