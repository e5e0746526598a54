// Dequantization speed: each widened type's blocks (random quants, fp16 scales in [0.5, 1))
// widened into a float buffer of 16 Mi elements (64 MiB, beyond the caches), best of 5 runs,
// one thread; memcpy of the same 64 MiB as the ceiling. `dequantize_bench`, built on request:
//   cmake --build --preset release --target dequantize_bench && build/release/dequantize_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/dequantize.hpp"

using attn::runtime::DType;

namespace {

template <class F>
double best_seconds(F&& f) {
    double best = 1e30;
    for (int r = 0; r < 5; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(
            best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

}  // namespace

int main() {
    constexpr std::size_t n = std::size_t{16} << 20;
    std::vector<float> out(n), src(n, 1.0f);
    std::mt19937 rng(1);
    const double copy = best_seconds([&] { std::memcpy(out.data(), src.data(), 4 * n); });
    std::printf("%-6s %8.2f Gfloat/s  (memcpy of 64 MiB)\n", "copy", n / copy / 1e9);
    for (const DType t : {DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0, DType::Q4_1,
                          DType::Q5_0, DType::Q5_1, DType::Q4_K, DType::Q5_K, DType::Q6_K}) {
        const std::size_t B = attn::runtime::dtype_block(t), S = attn::runtime::dtype_size(t);
        std::vector<std::byte> blocks(n / B * S);
        for (auto& b : blocks) b = static_cast<std::byte>(rng());
        if (B > 1)  // fp16 scales 0x3800..0x3BFF: finite, in [0.5, 1)
            for (std::size_t i = 0; i < n / B; ++i)
                for (const std::size_t at : {std::size_t{0}, std::size_t{2}, S - 2}) {
                    blocks[i * S + at] = static_cast<std::byte>(rng());
                    blocks[i * S + at + 1] = static_cast<std::byte>(0x38 + rng() % 4);
                }
        const double s = best_seconds([&] { attn::runtime::dequantize(t, blocks, out); });
        std::printf("%-6s %8.2f Gfloat/s  %6.2f GB/s read\n",
                    std::string(attn::runtime::dtype_name(t)).c_str(), n / s / 1e9,
                    blocks.size() / s / 1e9);
    }
}
