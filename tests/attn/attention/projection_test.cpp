// attn::project's ordered sums: out[i, c] = (..(0 + x[i,0] w[0,c]) + ..) + x[i,m-1] w[m-1,c],
// each product rounded before it is added, bit for bit, whatever the row and column blocks the
// implementation sums in registers; for every thread count; and BLAS's sums within rounding.
#include "attn/attention/projection.hpp"

#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "runtime/parallel.hpp"
#include "support/approx.hpp"

namespace {

template <class T>
std::vector<T> uniform(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(dist(gen));
    return v;
}

// The sums in order, one volatile product at a time (no contraction, no reassociation).
template <class T>
xt::xtensor<T, 2> in_order(const std::vector<T>& x, std::size_t sx, const std::vector<T>& w,
                           std::size_t sw, bool out_in, std::size_t n, std::size_t m,
                           std::size_t p) {
    xt::xtensor<T, 2> out = xt::zeros<T>({n, p});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < p; ++c) {
            T s = 0;
            for (std::size_t k = 0; k < m; ++k) {
                volatile T prod = x[i * sx + k] * (out_in ? w[c * sw + k] : w[k * sw + c]);
                s += prod;
            }
            out(i, c) = s;
        }
    return out;
}

template <class T>
void check_ordered() {
    struct Shape {
        std::size_t n, m, p;
    };
    // Rows beyond a multiple of 4, columns beyond a multiple of 32 (float) or 16 (double), a
    // single row and column, widths of real heads.
    for (const Shape sh : {Shape{1, 1, 1}, Shape{7, 5, 3}, Shape{9, 64, 64}, Shape{13, 48, 70},
                           Shape{130, 128, 128}, Shape{66, 96, 33}})
        for (bool out_in : {false, true})
            for (std::size_t threads : {1, 2}) {
                CAPTURE(sh.n);
                CAPTURE(sh.m);
                CAPTURE(sh.p);
                CAPTURE(out_in);
                CAPTURE(threads);
                attn::set_thread_limit(threads);
                const std::size_t sx = sh.m + 3;  // a column block of a wider matrix
                const std::size_t wr = out_in ? sh.p : sh.m, wc = out_in ? sh.m : sh.p;
                const std::size_t sw = wc + 2;
                const std::vector<T> x = uniform<T>(sh.n * sx, 1), w = uniform<T>(wr * sw, 2),
                                     b = uniform<T>(sh.p, 3);
                attn::Projection<T> proj;
                proj.weight = {w.data(), wr, wc, sw};
                proj.layout = out_in ? attn::WeightLayout::out_in : attn::WeightLayout::in_out;
                const attn::MatrixRef<T> xv{x.data(), sh.n, sh.m, sx};
                const xt::xtensor<T, 2> want = in_order(x, sx, w, sw, out_in, sh.n, sh.m, sh.p);
                const xt::xtensor<T, 2> got = attn::project(xv, proj, attn::ProjectionSum::ordered);
                REQUIRE(got.shape(0) == sh.n);
                REQUIRE(got.shape(1) == sh.p);
                CHECK(got == want);
                attn::test::require_allclose(attn::project(xv, proj, attn::ProjectionSum::blas),
                                             want, 0, 1e-5, "blas");
                proj.bias = b.data();
                xt::xtensor<T, 2> with_bias = want;
                for (std::size_t i = 0; i < sh.n; ++i)
                    for (std::size_t c = 0; c < sh.p; ++c) with_bias(i, c) += b[c];
                CHECK(attn::project(xv, proj, attn::ProjectionSum::ordered) == with_bias);
            }
    attn::set_thread_limit(0);
}

}  // namespace

TEST_CASE("ordered projection: the sums in order of d_in, bit for bit, every block edge") {
    check_ordered<float>();
    check_ordered<double>();
}
