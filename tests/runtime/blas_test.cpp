#include "runtime/blas.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <xtensor-blas/xlinalg.hpp>

TEST_CASE("blas: the core type asked for follows the CPU, and the user's choice wins") {
    const std::string preferred = attn::blas::preferred_core_type();
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
        CHECK(preferred == "SkylakeX");
    else if (__builtin_cpu_supports("avx2"))
        CHECK(preferred == "Haswell");
    const char* user = std::getenv("OPENBLAS_CORETYPE");
    const std::string want = user != nullptr ? std::string(user) : preferred;
    const std::string core = attn::blas::core_name();
    INFO("OPENBLAS_CORETYPE=" << std::string(user ? user : "(unset)") << ", OpenBLAS runs "
                              << core);
    if (!want.empty()) CHECK(core == want);
}

// Every forwarded entry point against a plain loop: the signatures must match OpenBLAS's.
template <class T>
void check_products() {
    auto A = xt::xtensor<T, 2>::from_shape({5, 3}), B = xt::xtensor<T, 2>::from_shape({3, 4});
    auto x = xt::xtensor<T, 1>::from_shape({3}), y = xt::xtensor<T, 1>::from_shape({3});
    for (std::size_t k = 0; k < A.size(); ++k) A.data()[k] = T(std::sin(1.0 + k));
    for (std::size_t k = 0; k < B.size(); ++k) B.data()[k] = T(std::cos(2.0 + k));
    for (std::size_t k = 0; k < 3; ++k) x(k) = T(0.5 - k), y(k) = T(k * k + 0.25);
    const xt::xtensor<T, 2> C = xt::linalg::dot(A, B);                   // gemm
    const xt::xtensor<T, 1> Ax = xt::linalg::dot(A, x);                  // gemv
    const xt::xtensor<T, 2> AAt = xt::linalg::dot(A, xt::transpose(A));  // syrk path
    const T xy = xt::linalg::vdot(x, y);                                 // dot
    const double tol = sizeof(T) == 4 ? 1e-5 : 1e-13;
    for (std::size_t i = 0; i < 5; ++i) {
        double ax = 0;
        for (std::size_t k = 0; k < 3; ++k) ax += double(A(i, k)) * x(k);
        CHECK(std::abs(Ax(i) - ax) < tol);
        for (std::size_t j = 0; j < 4; ++j) {
            double c = 0;
            for (std::size_t k = 0; k < 3; ++k) c += double(A(i, k)) * B(k, j);
            CHECK(std::abs(C(i, j) - c) < tol);
        }
        for (std::size_t j = 0; j < 5; ++j) {
            double c = 0;
            for (std::size_t k = 0; k < 3; ++k) c += double(A(i, k)) * A(j, k);
            CHECK(std::abs(AAt(i, j) - c) < tol);
        }
    }
    double dot = 0;
    for (std::size_t k = 0; k < 3; ++k) dot += double(x(k)) * y(k);
    CHECK(std::abs(xy - dot) < tol);
}

TEST_CASE("blas: products through the lazily loaded OpenBLAS, float and double") {
    attn::blas::set_threads(1);
    check_products<float>();
    check_products<double>();
}
