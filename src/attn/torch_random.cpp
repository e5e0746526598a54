#include "attn/torch_random.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

// Every floating-point operation below rounds on its own unless it is an explicit
// std::fma/std::fmaf: the library is built with -ffp-contract=off (CMakeLists.txt).

namespace attn {
namespace {

constexpr double kTwoPi = 6.283185307179586;  // the double 2 * pi, as torch's 2.0 * pi<double>

constexpr float f32_bits(std::uint32_t bits) {
    return std::bit_cast<float>(bits);
}

// Constants of the AVX2 kernel (avx_mathfun.h, Cephes), given as binary32 bit patterns.
constexpr float kLogP[9] = {f32_bits(0x3d9021bb), f32_bits(0xbdebd1b8), f32_bits(0x3def251a),
                            f32_bits(0xbdfe5d4f), f32_bits(0x3e11e9bf), f32_bits(0xbe2aae50),
                            f32_bits(0x3e4cceac), f32_bits(0xbe7ffffc), f32_bits(0x3eaaaaaa)};
constexpr float kLogQ1 = f32_bits(0xb95e8083);
constexpr float kLogQ2 = f32_bits(0x3f318000);
constexpr float kSqrtHf = f32_bits(0x3f3504f3);
constexpr float kFourOverPi = f32_bits(0x3fa2f983);
constexpr float kDp1 = f32_bits(0xbf490000);
constexpr float kDp2 = f32_bits(0xb97da000);
constexpr float kDp3 = f32_bits(0xb3222169);
constexpr float kSinS0 = f32_bits(0xb94ca1f9);
constexpr float kSinS1 = f32_bits(0x3c08839e);
constexpr float kSinS2 = f32_bits(0xbe2aaaa3);
constexpr float kCosC0 = f32_bits(0x37ccf5ce);
constexpr float kCosC1 = f32_bits(0xbab6061a);
constexpr float kCosC2 = f32_bits(0x3d2aaaa5);
constexpr float kTwoPiF = f32_bits(0x40c90fdb);

// ln(u) for u in (0, 1], a normal float: log256_ps with the FMAs GCC contracted.
//   u = m 2^e, m in [0.5, 1); if m < sqrt(1/2): x = 2m - 1, e -= 1, else x = m - 1;
//   ln u = x - x^2/2 + x^3 P(x) + e (Q1 + Q2).
float log_avx2(float u) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(u);
    float e = static_cast<float>(static_cast<std::int32_t>(bits >> 23) - 127);
    e = e + 1.0f;
    const float m = std::bit_cast<float>((bits & 0x807FFFFFu) | 0x3F000000u);  // [0.5, 1)
    float t = 0.0f;
    if (m < kSqrtHf) {
        t = m;
        e = e - 1.0f;
    }
    float x = m - 1.0f;
    x = t + x;
    float y = std::fmaf(kLogP[0], x, kLogP[1]);
    for (int k = 2; k <= 8; ++k) y = std::fmaf(y, x, kLogP[k]);
    const float z = x * x;
    y = y * x;
    const float e_q1 = e * kLogQ1;
    y = std::fmaf(y, z, e_q1);
    const float half_z = 0.5f * z;
    y = y - half_z;
    x = x + y;
    return std::fmaf(e, kLogQ2, x);
}

// (sin theta, cos theta) for theta in [0, 2 pi): sincos256_ps with GCC's FMAs.
//   j = even integer nearest theta 4/pi (rounded up), r = theta - j pi/4 (3-part Cody-Waite),
//   polynomials in z = r^2; quadrant from j & 2 (swap) and j & 4 / (j - 2) & 4 (signs).
void sincos_avx2(float theta, float& sin_out, float& cos_out) {
    const float scaled = theta * kFourOverPi;
    std::int32_t j = static_cast<std::int32_t>(scaled);  // truncation, as cvttps2dq
    j = (j + 1) & ~1;
    const float y = static_cast<float>(j);
    float r = std::fmaf(y, kDp1, theta);
    r = std::fmaf(y, kDp2, r);
    r = std::fmaf(y, kDp3, r);
    const float z = r * r;

    float c = std::fmaf(kCosC0, z, kCosC1);
    c = std::fmaf(c, z, kCosC2);
    c = c * z;
    const float half_z = 0.5f * z;
    c = std::fmaf(c, z, -half_z);
    c = c + 1.0f;

    float s = std::fmaf(kSinS0, z, kSinS1);
    s = std::fmaf(s, z, kSinS2);
    s = s * z;
    s = std::fmaf(s, r, r);

    // The vector code selects by masking and adding, so each result gains a + 0.0f
    // (turning -0 into +0); -ffp-contract=off and no -ffast-math keep these additions.
    float sin_v;
    float cos_v;
    if ((j & 2) == 0) {
        sin_v = 0.0f + s;
        cos_v = c + 0.0f;
    } else {
        sin_v = c + 0.0f;
        cos_v = 0.0f + s;
    }
    if ((j & 4) != 0) sin_v = -sin_v;
    if (((j - 2) & 4) == 0) cos_v = -cos_v;
    sin_out = sin_v;
    cos_out = cos_v;
}

// Block of 16 in place, float32, AVX2 kernel (normal_fill_16_AVX2): pairs (j, j + 8).
void normal_block16_avx2(float* d, float mean, float std) {
    for (int j = 0; j < 8; ++j) {
        const float u1 = 1.0f - d[j];
        const float u2 = d[j + 8];
        const float radius = std::sqrt(log_avx2(u1) * -2.0f);
        const float theta = kTwoPiF * u2;
        float sin_t;
        float cos_t;
        sincos_avx2(theta, sin_t, cos_t);
        const float n1 = radius * cos_t;
        const float n2 = radius * sin_t;
        d[j] = std::fmaf(n1, std, mean);
        d[j + 8] = std::fmaf(n2, std, mean);
    }
}

// Block of 16 in place, float32, default kernel (normal_fill_16<float>): glibc logf/sinf/cosf.
void normal_block16_scalar(float* d, float mean, float std) {
    for (int j = 0; j < 8; ++j) {
        const float u1 = 1.0f - d[j];
        const float u2 = d[j + 8];
        const float radius = std::sqrt(-2.0f * std::log(u1));
        const float theta = static_cast<float>(kTwoPi * static_cast<double>(u2));
        const float n1 = radius * std::cos(theta);
        const float n2 = radius * std::sin(theta);
        const float s1 = n1 * std;
        const float s2 = n2 * std;
        d[j] = s1 + mean;
        d[j + 8] = s2 + mean;
    }
}

// Block of 16 in place, float64 (normal_fill_16<double>); the AVX2 build fused the last step.
void normal_block16_double(double* d, double mean, double std, TorchKernel kernel) {
    for (int j = 0; j < 8; ++j) {
        const double u1 = 1.0 - d[j];
        const double u2 = d[j + 8];
        const double radius = std::sqrt(-2.0 * std::log(u1));
        const double theta = kTwoPi * u2;
        const double n1 = radius * std::cos(theta);
        const double n2 = radius * std::sin(theta);
        if (kernel == TorchKernel::avx2) {
            d[j] = std::fma(n1, std, mean);
            d[j + 8] = std::fma(n2, std, mean);
        } else {
            const double s1 = n1 * std;
            const double s2 = n2 * std;
            d[j] = s1 + mean;
            d[j + 8] = s2 + mean;
        }
    }
}

float uniform_float01(TorchGenerator& gen) {
    const std::uint32_t k = gen.u32() & 0xFFFFFFu;
    return static_cast<float>(k) * 0x1p-24f;  // exact
}

void check_uniform_bounds(double a, double b) {
    if (!std::isfinite(a) || !std::isfinite(b) || !(a <= b) || !std::isfinite(b - a))
        throw std::invalid_argument("uniform_: expected finite bounds with a <= b, got a = " +
                                    std::to_string(a) + ", b = " + std::to_string(b));
}

void check_normal_params(double mean, double std) {
    if (!std::isfinite(mean) || !std::isfinite(std) || std < 0.0)
        throw std::invalid_argument("normal_: expected finite mean and std >= 0, got mean = " +
                                    std::to_string(mean) + ", std = " + std::to_string(std));
}

std::size_t checked_count(std::size_t rows, std::size_t cols, const char* what) {
    if (cols != 0 && rows > std::numeric_limits<std::size_t>::max() / cols)
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(rows) + " x " +
                                    std::to_string(cols) + " elements overflow size_t");
    return rows * cols;
}

}  // namespace

TorchGenerator::TorchGenerator(std::uint64_t seed, TorchKernel kernel) : kernel_(kernel) {
    manual_seed(seed);
}

void TorchGenerator::manual_seed(std::uint64_t seed) {
    seed_ = seed;
    engine_.seed(static_cast<std::uint32_t>(seed));  // seed mod 2^32, init_genrand
    normal_cache_.reset();
}

std::uint64_t TorchGenerator::u64() {
    const std::uint64_t hi = u32();
    const std::uint64_t lo = u32();
    return (hi << 32) | lo;
}

double TorchGenerator::uniform_double01() {
    const std::uint64_t k = u64() & ((std::uint64_t{1} << 53) - 1);
    return static_cast<double>(k) * 0x1p-53;  // exact
}

void TorchGenerator::uniform_(std::span<float> out, double a, double b) {
    check_uniform_bounds(a, b);
    const float lo = static_cast<float>(a);
    const float hi = static_cast<float>(b);
    const float range = hi - lo;
    for (float& v : out) {
        const float x = uniform_float01(*this);
        if (kernel_ == TorchKernel::avx2) {
            v = std::fmaf(x, range, lo);
        } else {
            const float scaled = x * range;
            v = scaled + lo;
        }
    }
}

void TorchGenerator::uniform_(std::span<double> out, double a, double b) {
    check_uniform_bounds(a, b);
    const double range = b - a;
    for (double& v : out) {
        const double x = uniform_double01();
        if (kernel_ == TorchKernel::avx2) {
            v = std::fma(x, range, a);
        } else {
            const double scaled = x * range;
            v = scaled + a;
        }
    }
}

template <class T>
void TorchGenerator::normal_elementwise(std::span<T> out, double mean, double std) {
    for (T& out_v : out) {
        double v;
        if (normal_cache_) {
            v = *normal_cache_;
            normal_cache_.reset();
        } else {
            const double u1 = uniform_double01();  // angle
            const double u2 = uniform_double01();  // radius
            const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
            const double theta = kTwoPi * u1;
            normal_cache_ = r * std::sin(theta);
            v = r * std::cos(theta);
        }
        if (kernel_ == TorchKernel::avx2) {
            out_v = static_cast<T>(std::fma(v, std, mean));
        } else {
            const double scaled = v * std;
            out_v = static_cast<T>(scaled + mean);
        }
    }
}

void TorchGenerator::normal_(std::span<float> out, double mean, double std) {
    check_normal_params(mean, std);
    const std::size_t n = out.size();
    if (n < 16) {
        normal_elementwise(out, mean, std);
        return;
    }
    const float mean_f = static_cast<float>(mean);
    const float std_f = static_cast<float>(std);
    auto block = kernel_ == TorchKernel::avx2 ? normal_block16_avx2 : normal_block16_scalar;
    float* d = out.data();
    for (std::size_t i = 0; i < n; ++i) d[i] = uniform_float01(*this);
    for (std::size_t b = 0; b + 16 <= n; b += 16) block(d + b, mean_f, std_f);
    if (n % 16 != 0) {
        float* tail = d + n - 16;
        for (std::size_t i = 0; i < 16; ++i) tail[i] = uniform_float01(*this);
        block(tail, mean_f, std_f);
    }
}

void TorchGenerator::normal_(std::span<double> out, double mean, double std) {
    check_normal_params(mean, std);
    const std::size_t n = out.size();
    if (n < 16) {
        normal_elementwise(out, mean, std);
        return;
    }
    double* d = out.data();
    for (std::size_t i = 0; i < n; ++i) d[i] = uniform_double01();
    for (std::size_t b = 0; b + 16 <= n; b += 16) normal_block16_double(d + b, mean, std, kernel_);
    if (n % 16 != 0) {
        double* tail = d + n - 16;
        for (std::size_t i = 0; i < 16; ++i) tail[i] = uniform_double01();
        normal_block16_double(tail, mean, std, kernel_);
    }
}

template <class T>
xt::xtensor<T, 2> torch_rand(TorchGenerator& gen, std::size_t rows, std::size_t cols) {
    const std::size_t n = checked_count(rows, cols, "torch_rand");
    xt::xtensor<T, 2> out = xt::xtensor<T, 2>::from_shape({rows, cols});
    gen.uniform_(std::span<T>(out.data(), n), 0.0, 1.0);
    return out;
}

template <class T>
xt::xtensor<T, 2> torch_randn(TorchGenerator& gen, std::size_t rows, std::size_t cols) {
    const std::size_t n = checked_count(rows, cols, "torch_randn");
    xt::xtensor<T, 2> out = xt::xtensor<T, 2>::from_shape({rows, cols});
    gen.normal_(std::span<T>(out.data(), n), 0.0, 1.0);
    return out;
}

template <class T>
xt::xtensor<T, 2> torch_embedding(TorchGenerator& gen, std::size_t num_embeddings,
                                  std::size_t embedding_dim) {
    const std::size_t n = checked_count(num_embeddings, embedding_dim, "torch_embedding");
    xt::xtensor<T, 2> weight = xt::xtensor<T, 2>::from_shape({num_embeddings, embedding_dim});
    gen.normal_(std::span<T>(weight.data(), n), 0.0, 1.0);
    return weight;
}

double torch_linear_weight_bound(std::size_t in_features) {
    // kaiming_uniform_(w, a=sqrt(5)): gain = sqrt(2 / (1 + a**2)), std = gain / sqrt(fan_in),
    // bound = sqrt(3) * std; a**2 = 5.000000000000001 in double.
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1.0 + a * a));
    const double std = gain / std::sqrt(static_cast<double>(in_features));
    return std::sqrt(3.0) * std;
}

template <class T>
TorchLinear<T> torch_linear(TorchGenerator& gen, std::size_t in_features, std::size_t out_features,
                            bool bias) {
    if (in_features == 0) throw std::invalid_argument("torch_linear: in_features must be >= 1");
    const std::size_t n = checked_count(out_features, in_features, "torch_linear");
    TorchLinear<T> lin;
    lin.weight = xt::xtensor<T, 2>::from_shape({out_features, in_features});
    const double bw = torch_linear_weight_bound(in_features);
    gen.uniform_(std::span<T>(lin.weight.data(), n), -bw, bw);
    if (bias) {
        lin.bias = xt::xtensor<T, 1>::from_shape({out_features});
        const double bb = 1.0 / std::sqrt(static_cast<double>(in_features));
        gen.uniform_(std::span<T>(lin.bias.data(), out_features), -bb, bb);
    } else {
        lin.bias = xt::xtensor<T, 1>::from_shape({0});
    }
    return lin;
}

template xt::xtensor<float, 2> torch_rand<float>(TorchGenerator&, std::size_t, std::size_t);
template xt::xtensor<double, 2> torch_rand<double>(TorchGenerator&, std::size_t, std::size_t);
template xt::xtensor<float, 2> torch_randn<float>(TorchGenerator&, std::size_t, std::size_t);
template xt::xtensor<double, 2> torch_randn<double>(TorchGenerator&, std::size_t, std::size_t);
template xt::xtensor<float, 2> torch_embedding<float>(TorchGenerator&, std::size_t, std::size_t);
template xt::xtensor<double, 2> torch_embedding<double>(TorchGenerator&, std::size_t, std::size_t);
template TorchLinear<float> torch_linear<float>(TorchGenerator&, std::size_t, std::size_t, bool);
template TorchLinear<double> torch_linear<double>(TorchGenerator&, std::size_t, std::size_t, bool);

std::vector<std::int64_t> torch_randint(TorchGenerator& gen, std::uint64_t high,
                                        std::size_t count) {
    if (high == 0) throw std::invalid_argument("randint: high = 0 (at least 1)");
    std::vector<std::int64_t> out(count);
    const bool wide = high >= (std::uint64_t{1} << 32);
    for (auto& v : out) v = static_cast<std::int64_t>((wide ? gen.u64() : gen.u32()) % high);
    return out;
}

}  // namespace attn
