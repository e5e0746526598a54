// Element-wise closeness of two arrays, reported like llm.c's check_tensor: on failure the
// message gives the shape, max |got - want|, where it occurs, and how many elements fail.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>

namespace attn::test {

/// REQUIREs equal shapes and |got - want| <= atol + rtol |want| for every element
/// (numpy.allclose). NaN never passes.
template <class G, class W>
void require_allclose(const G& got_expr, const W& want_expr, double rtol, double atol,
                      std::string_view what = "values") {
    const xt::xarray<double> got = got_expr;
    const xt::xarray<double> want = want_expr;
    const std::vector<std::size_t> got_shape(got.shape().begin(), got.shape().end());
    const std::vector<std::size_t> want_shape(want.shape().begin(), want.shape().end());
    REQUIRE_MESSAGE(got_shape == want_shape,
                    fmt::format("{}: shape ({}) != want ({})", what, fmt::join(got_shape, ", "),
                                fmt::join(want_shape, ", ")));
    double max_diff = -1.0;  // NaN counts as an infinite difference
    std::size_t worst = 0;
    std::size_t failures = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double g = got.data()[i];
        const double w = want.data()[i];
        const double diff = std::fabs(g - w);
        if (!(diff <= atol + rtol * std::fabs(w))) ++failures;
        const double rank = std::isnan(diff) ? HUGE_VAL : diff;
        if (rank > max_diff) {
            max_diff = rank;
            worst = i;
        }
    }
    std::vector<std::size_t> where(got_shape.size());
    for (std::size_t d = got_shape.size(), rest = worst; d-- > 0;) {
        where[d] = got_shape[d] ? rest % got_shape[d] : 0;
        rest = got_shape[d] ? rest / got_shape[d] : 0;
    }
    const std::string report =
        got.size() == 0
            ? fmt::format("{}: empty", what)
            : fmt::format(
                  "{}: shape ({}), {} of {} elements outside atol {:g} + rtol {:g}; max "
                  "|diff| = {:g} at ({}): got {}, want {}",
                  what, fmt::join(got_shape, ", "), failures, got.size(), atol, rtol, max_diff,
                  fmt::join(where, ", "), got.data()[worst], want.data()[worst]);
    REQUIRE_MESSAGE(failures == 0, report);
}

/// `want` listed row-major (e.g. from the reference JSON), taking the shape of `got`.
template <class G>
void require_allclose(const G& got_expr, const std::vector<double>& want, double rtol, double atol,
                      std::string_view what = "values") {
    const xt::xarray<double> got = got_expr;
    REQUIRE_MESSAGE(got.size() == want.size(),
                    fmt::format("{}: {} elements, want {}", what, got.size(), want.size()));
    require_allclose(got, xt::adapt(want, got.shape()), rtol, atol, what);
}

}  // namespace attn::test
