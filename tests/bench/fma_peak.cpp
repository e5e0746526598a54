// The machine's float32 FMA ceiling for the benchmarks (not a test): 10 independent chains of
// 8-wide (AVX2) or 16-wide (AVX-512) FMAs per thread, all threads at once; prints GFLOP per
// wall second and per CPU second of the faster instruction set. Usage: fma_peak THREADS
#include <immintrin.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>
#include <vector>
constexpr long kIters = 200000000L / 10;
__attribute__((target("avx2,fma"))) void work256(float* sink) {
    __m256 a[10], b = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(1e-3f);
    for (int k = 0; k < 10; ++k) a[k] = _mm256_set1_ps(float(k));
    for (long i = 0; i < kIters; ++i) {
#pragma GCC unroll 10
        for (int k = 0; k < 10; ++k) a[k] = _mm256_fmadd_ps(a[k], b, c);
    }
    __m256 s = a[0];
    for (int k = 1; k < 10; ++k) s = _mm256_add_ps(s, a[k]);
    *sink = _mm256_cvtss_f32(s);
}
__attribute__((target("avx512f"))) void work512(float* sink) {
    __m512 a[10], b = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(1e-3f);
    for (int k = 0; k < 10; ++k) a[k] = _mm512_set1_ps(float(k));
    for (long i = 0; i < kIters; ++i) {
#pragma GCC unroll 10
        for (int k = 0; k < 10; ++k) a[k] = _mm512_fmadd_ps(a[k], b, c);
    }
    __m512 s = a[0];
    for (int k = 1; k < 10; ++k) s = _mm512_add_ps(s, a[k]);
    *sink = _mm512_reduce_add_ps(s);
}
int main(int argc, char** argv) {
    const int threads = std::atoi(argv[1]);
    double best_wall = 0, best_cpu = 0;
    for (int wide : {8, 16}) {
        if (wide == 16 && !__builtin_cpu_supports("avx512f")) continue;
        std::vector<float> sinks(threads);
        const auto t0 = std::chrono::steady_clock::now();
        const std::clock_t c0 = std::clock();
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back(wide == 8 ? work256 : work512, &sinks[t]);
        for (auto& t : pool) t.join();
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        const double flop = threads * kIters * 10.0 * 2.0 * wide;
        if (flop / cpu > best_cpu) best_wall = flop / s / 1e9, best_cpu = flop / cpu / 1e9;
    }
    std::printf("%.1f %.1f\n", best_wall, best_cpu);  // per wall, per CPU second
}
