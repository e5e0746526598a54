#include "runtime/blas.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

#include "runtime/shared_library.hpp"
#include "xflens/cxxblas/drivers/cblas.h"  // the declarations xtensor-blas compiles against

namespace attn::blas {

namespace {

int g_threads = 0;  // 0 = OpenBLAS's default

const runtime::SharedLibrary& library() {
    static const runtime::SharedLibrary lib = [] {
        const std::string core = preferred_core_type();
        if (std::getenv("OPENBLAS_CORETYPE") == nullptr && !core.empty())
            ::setenv("OPENBLAS_CORETYPE", core.c_str(), 0);
        // Idle pool threads spin on sched_yield for 2^28 cycles (about 0.1 s) after each
        // product before they sleep: between a model's products (attention, norms) that took
        // 12% of the CPU time from the threads doing the work. 2^4 cycles: they sleep at once,
        // and waking them costs microseconds per product.
        ::setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
        return runtime::SharedLibrary("libopenblas.so.0", "OpenBLAS");
    }();
    return lib;
}

template <typename F>
F* symbol(const char* name) {
    return library().function<F>(name);
}

void apply_threads() {
    if (g_threads > 0) symbol<void(int)>("openblas_set_num_threads")(g_threads);
}

void load_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        library();
        apply_threads();
    });
}

// The function `name` of OpenBLAS, looked up once; loading applies the thread count.
template <typename F>
F* cblas(const char* name) {
    load_once();
    return symbol<F>(name);
}

bool loaded() {
    return ::dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD) != nullptr;
}

}  // namespace

std::string preferred_core_type() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
    return "";
}

void set_threads(int threads) {
    g_threads = threads;
    if (loaded()) apply_threads();
}

std::string core_name() {
    load_once();
    return symbol<char*()>("openblas_get_corename")();
}

}  // namespace attn::blas

// ---- the cblas entry points xtensor-blas uses, forwarded to OpenBLAS ----
using attn::blas::cblas;

extern "C" {

void cblas_sgemm(CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, CBLAS_INT m, CBLAS_INT n,
                 CBLAS_INT k, float alpha, const float* a, CBLAS_INT lda, const float* b,
                 CBLAS_INT ldb, float beta, float* c, CBLAS_INT ldc) {
    static auto f = cblas<decltype(cblas_sgemm)>("cblas_sgemm");
    f(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, CBLAS_INT m, CBLAS_INT n,
                 CBLAS_INT k, double alpha, const double* a, CBLAS_INT lda, const double* b,
                 CBLAS_INT ldb, double beta, double* c, CBLAS_INT ldc) {
    static auto f = cblas<decltype(cblas_dgemm)>("cblas_dgemm");
    f(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_sgemv(CBLAS_ORDER o, CBLAS_TRANSPOSE t, CBLAS_INT m, CBLAS_INT n, float alpha,
                 const float* a, CBLAS_INT lda, const float* x, CBLAS_INT incx, float beta,
                 float* y, CBLAS_INT incy) {
    static auto f = cblas<decltype(cblas_sgemv)>("cblas_sgemv");
    f(o, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void cblas_dgemv(CBLAS_ORDER o, CBLAS_TRANSPOSE t, CBLAS_INT m, CBLAS_INT n, double alpha,
                 const double* a, CBLAS_INT lda, const double* x, CBLAS_INT incx, double beta,
                 double* y, CBLAS_INT incy) {
    static auto f = cblas<decltype(cblas_dgemv)>("cblas_dgemv");
    f(o, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void cblas_ssyrk(CBLAS_ORDER o, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_INT n, CBLAS_INT k,
                 float alpha, const float* a, CBLAS_INT lda, float beta, float* c, CBLAS_INT ldc) {
    static auto f = cblas<decltype(cblas_ssyrk)>("cblas_ssyrk");
    f(o, u, t, n, k, alpha, a, lda, beta, c, ldc);
}

void cblas_dsyrk(CBLAS_ORDER o, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_INT n, CBLAS_INT k,
                 double alpha, const double* a, CBLAS_INT lda, double beta, double* c,
                 CBLAS_INT ldc) {
    static auto f = cblas<decltype(cblas_dsyrk)>("cblas_dsyrk");
    f(o, u, t, n, k, alpha, a, lda, beta, c, ldc);
}

float cblas_sdot(CBLAS_INT n, const float* x, CBLAS_INT incx, const float* y, CBLAS_INT incy) {
    static auto f = cblas<decltype(cblas_sdot)>("cblas_sdot");
    return f(n, x, incx, y, incy);
}

double cblas_ddot(CBLAS_INT n, const double* x, CBLAS_INT incx, const double* y, CBLAS_INT incy) {
    static auto f = cblas<decltype(cblas_ddot)>("cblas_ddot");
    return f(n, x, incx, y, incy);
}

}  // extern "C"
