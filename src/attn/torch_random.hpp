// PyTorch 1.13's CPU generator, reproduced bit for bit (spec: shared/docs/torch-rng.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace attn {

/// Which of libtorch's compiled distribution kernels to imitate (torch-rng.md sec. 7).
///   avx2:   what every x86-64 CPU with AVX2 runs in torch 1.13 (AVX-512 CPUs included):
///           uniform_(a, b) is fmaf(x, b - a, a); float32 normal_ (n >= 16) uses the
///           Cephes-style polynomial log/sincos with FMAs.
///   scalar: ATEN_CPU_CAPABILITY=default (no AVX2): separate multiply and add; float32
///           normal_ (n >= 16) uses glibc logf/sinf/cosf.
/// Raw draws, torch.rand and element-wise randn (n < 16, mean 0, std 1) agree in both.
enum class TorchKernel { avx2, scalar };

/// The state of torch.Generator on the CPU: an MT19937 engine, the seed, and normal_cache
/// (the spare double of the element-wise Box-Muller pair).
///
///   manual_seed(S):  engine seeded with S mod 2^32 (init_genrand; the upper 32 bits are
///                    ignored, a negative Python seed is its two's complement), cache cleared.
///   u32():           the standard tempered MT19937 output.
///   u64():           (u32() << 32) | u32(): the first draw is the high word.
///
/// Fills write elements in memory order (row-major), one element at a time:
///   uniform_ float32:  k = u32() & (2^24 - 1), x = k * 2^-24 in [0, 1),
///                      lo = f32(a), hi = f32(b), out = fmaf(x, f32(hi - lo), lo)
///                      (scalar: f32(f32(x * range) + lo)).                       1 u32 each
///   uniform_ float64:  k = u64() & (2^53 - 1), x = k * 2^-53,
///                      out = fma(x, b - a, a) (scalar: x * (b - a) + a).          2 u32 each
///   normal_, n < 16:   element-wise double Box-Muller; u1 then u2 uniform doubles,
///                      r = sqrt(-2 log(1 - u2)), theta = 2 pi u1, returns r cos(theta)
///                      and caches r sin(theta) for the next element-wise draw;
///                      out = cast(fma(v, std, mean)) (scalar: cast(v * std + mean)).
///   normal_, n >= 16:  fill all n with uniforms (dtype's own), transform each full block
///                      of 16 in place: u1 = 1 - d[j], u2 = d[j + 8], j in [0, 8):
///                      d[j] = radius cos(2 pi u2) std + mean, d[j+8] = radius sin(...) ...,
///                      radius = sqrt(-2 ln u1). If n mod 16 != 0, 16 fresh uniforms
///                      overwrite d[n-16, n) and that block is transformed again.
///                      Uses n + 16 [n mod 16 != 0] uniforms; neither reads nor clears the
///                      cache.
/// A default-constructed generator starts like torch.Generator(): seed 67280421310721.
class TorchGenerator {
  public:
    static constexpr std::uint64_t kDefaultSeed = 67280421310721ULL;

    explicit TorchGenerator(std::uint64_t seed = kDefaultSeed,
                            TorchKernel kernel = TorchKernel::avx2);

    /// torch.manual_seed(S). For a negative Python seed pass std::uint64_t(S) (two's
    /// complement), e.g. -1 -> 0xFFFFFFFFFFFFFFFF; only S mod 2^32 seeds the engine.
    void manual_seed(std::uint64_t seed);
    /// torch.initial_seed(): the 64-bit seed as given.
    std::uint64_t initial_seed() const { return seed_; }

    TorchKernel kernel() const { return kernel_; }
    void set_kernel(TorchKernel kernel) { kernel_ = kernel; }

    std::uint32_t u32() { return static_cast<std::uint32_t>(engine_()); }
    std::uint64_t u64();

    /// The spare Box-Muller value left by an element-wise normal_, if any.
    std::optional<double> normal_cache() const { return normal_cache_; }

    /// t.uniform_(a, b) on a contiguous tensor; torch.rand is a = 0, b = 1.
    /// Throws std::invalid_argument unless a and b are finite and a <= b.
    void uniform_(std::span<float> out, double a = 0.0, double b = 1.0);
    void uniform_(std::span<double> out, double a = 0.0, double b = 1.0);

    /// t.normal_(mean, std) on a contiguous tensor (torch.randn: mean 0, std 1). The float32
    /// batched path takes f32(mean) and f32(std). Throws std::invalid_argument unless mean
    /// and std are finite and std >= 0.
    void normal_(std::span<float> out, double mean = 0.0, double std = 1.0);
    void normal_(std::span<double> out, double mean = 0.0, double std = 1.0);

  private:
    template <class T>
    void normal_elementwise(std::span<T> out, double mean, double std);
    double uniform_double01();  // x = (u64() & (2^53 - 1)) * 2^-53

    std::mt19937 engine_;  // seeding and output are torch's at::mt19937 (torch-rng.md sec. 1)
    std::uint64_t seed_ = kDefaultSeed;
    std::optional<double> normal_cache_;
    TorchKernel kernel_ = TorchKernel::avx2;
};

/// torch.randint(high, shape, generator=gen) on the CPU (int64, `count` elements, row-major):
/// each element is u32() % high when high < 2^32, else u64() % high (torch 1.13's
/// uniform_int_from_to_distribution; later versions take u64() from 2^28). high >= 1, else
/// std::invalid_argument.
std::vector<std::int64_t> torch_randint(TorchGenerator& gen, std::uint64_t high, std::size_t count);

/// torch.rand(rows, cols) (float32) or torch.rand(rows, cols, dtype=torch.float64).
/// Returns (rows, cols), filled row-major.
template <class T = float>
xt::xtensor<T, 2> torch_rand(TorchGenerator& gen, std::size_t rows, std::size_t cols);

/// torch.randn(rows, cols): normal_(0, 1) on rows * cols elements. Returns (rows, cols).
template <class T = float>
xt::xtensor<T, 2> torch_randn(TorchGenerator& gen, std::size_t rows, std::size_t cols);

/// nn.Embedding(num_embeddings, embedding_dim).weight: normal_(0, 1), row-major.
/// Returns (num_embeddings, embedding_dim). Uses N*D u32 (+16 if N*D mod 16 != 0); N*D < 16
/// takes the element-wise path and leaves a value in normal_cache.
template <class T = float>
xt::xtensor<T, 2> torch_embedding(TorchGenerator& gen, std::size_t num_embeddings,
                                  std::size_t embedding_dim);

/// The parameters of nn.Linear(in_features, out_features, bias) as initialised by torch:
///   weight (out, in) ~ uniform_(-bw, bw),  bw = sqrt(3) * (sqrt(2 / (1 + a^2)) / sqrt(in)),
///                                          a = sqrt(5), all in double in this order;
///   then bias (out,) ~ uniform_(-1/sqrt(in), 1/sqrt(in)) (drawn after the weight).
/// y = x W^T + b. Without bias, `bias` is empty (shape (0,)) and nothing is drawn for it.
template <class T = float>
struct TorchLinear {
    xt::xtensor<T, 2> weight;  // (out, in)
    xt::xtensor<T, 1> bias;    // (out,) or (0,)
};

/// bw above, exactly as kaiming_uniform_(weight, a=sqrt(5)) computes it in Python.
double torch_linear_weight_bound(std::size_t in_features);

/// Throws std::invalid_argument if in_features is 0.
template <class T = float>
TorchLinear<T> torch_linear(TorchGenerator& gen, std::size_t in_features, std::size_t out_features,
                            bool bias = true);

}  // namespace attn
