// OpenBLAS, loaded on first use. Commands that do no matrix product (encode, bits) never
// load it, so they start in about a millisecond instead of five; and the kernel OpenBLAS
// picks can be chosen before it loads (Debian's OpenBLAS 0.3.21 does not recognise recent
// AVX-512 CPUs and falls back to its slowest generic kernels).
//
// blas.cpp defines the cblas_* functions that xtensor-blas calls, each forwarding to the
// same function of libopenblas.so.0 found with dlopen/dlsym.
#pragma once

#include <string>

namespace attn::blas {

/// OpenBLAS loads with OPENBLAS_THREAD_TIMEOUT=4 unless the environment sets it: idle pool
/// threads sleep at once instead of yielding the CPU for about 0.1 s after every product.
///
/// The OpenBLAS core type attn asks for when the environment does not name one:
///   AVX-512 F/BW/DQ/VL -> "SkylakeX",  AVX2 + FMA -> "Haswell",  otherwise "" (OpenBLAS's own
/// choice). OPENBLAS_CORETYPE set by the user always wins.
std::string preferred_core_type();

/// Threads for OpenBLAS's pool (applied now if loaded, else when it loads).
void set_threads(int threads);

/// The kernel OpenBLAS runs (openblas_get_corename), e.g. "SkylakeX"; loads it.
std::string core_name();

}  // namespace attn::blas
