// The svg lines plot with an x column, log axes and marked x values.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "io/svg.hpp"
#include "support/text.hpp"
#include "support/write_through.hpp"

namespace {

using attn::test::contains;
using attn::test::count;

// Multiply-adds per layer against n (d = 512), as complexity tabulates them: columns n,
// recurrent n d^2, self_attention n^2 d; n = 16, 64, ..., 65536.
attn::io::ArrayInfo cost_info(std::size_t rows) {
    attn::io::ArrayInfo info = attn::test::matrix_info(rows, 3, "multiply-adds per layer");
    info.column_labels = {"n", "recurrent", "self_attention"};
    info.x_column = 0;
    return info;
}

std::vector<double> costs(std::size_t rows) {
    std::vector<double> v;
    for (std::size_t k = 0; k < rows; ++k) {
        const double n = std::pow(4.0, double(k) + 2), d = 512;
        v.insert(v.end(), {n, n * d * d, n * n * d});
    }
    return v;
}

std::string write_lines(const attn::io::ArrayInfo& info, const std::vector<double>& v) {
    attn::io::PictureStyle style;
    style.plot = attn::io::Plot::lines;
    return attn::test::write_through(
        [&](attn::io::OutputFile& out) {
            return std::make_unique<attn::io::SvgWriter>(out, style);
        },
        info, v, "lines.svg");
}

// The points="x,y x,y ..." of each polyline, as pairs.
std::vector<std::vector<std::pair<double, double>>> polylines(const std::string& svg) {
    std::vector<std::vector<std::pair<double, double>>> out;
    for (auto at = svg.find("points=\""); at != std::string::npos;
         at = svg.find("points=\"", at + 1)) {
        out.emplace_back();
        const char* p = svg.c_str() + at + 8;
        double x = 0, y = 0;
        int used = 0;
        while (std::sscanf(p, "%lf,%lf%n", &x, &y, &used) == 2) {
            out.back().emplace_back(x, y);
            p += used;
        }
    }
    return out;
}

}  // namespace

TEST_CASE("svg lines: the x column is the x axis, not a curve; curves named by their columns") {
    const std::string svg = write_lines(cost_info(4), costs(4));
    CHECK(count(svg, "<polyline ") == 2);
    CHECK(contains(svg, ">recurrent</text>"));
    CHECK(contains(svg, ">self_attention</text>"));
    CHECK(!contains(svg, ">Col n</text>"));
    CHECK(contains(svg, ">n</text>"));  // the x axis's name
    // Linear x from 16 to 1024: points' x grow with n, proportionally.
    const auto lines = polylines(svg);
    REQUIRE(lines.size() == 2);
    REQUIRE(lines[0].size() == 4);
    const double x16 = lines[0][0].first, x1024 = lines[0][3].first;
    const double x256 = lines[0][2].first;
    CHECK((x256 - x16) / (x1024 - x16) == doctest::Approx(240.0 / 1008).epsilon(0.01));
}

TEST_CASE("svg lines: log-log axes: power laws are straight, ticks at decades") {
    attn::io::ArrayInfo info = cost_info(8);  // n = 16, 64, ..., 262144
    info.log_x = info.log_y = true;
    info.x_markers = {{"n = d = 512", 512.0}};
    const std::string svg = write_lines(info, costs(8));
    for (const char* t :
         {">10</text>", ">100</text>", ">1000</text>", ">100000</text>", ">1e+06</text>"})
        CHECK(contains(svg, t));
    const auto lines = polylines(svg);
    REQUIRE(lines.size() == 2);
    // recurrent ~ n: slope 1 per decade; self-attention ~ n^2: slope 2 (in pixels the ratio
    // of the y and x scales, the same for both curves).
    auto slope = [](const std::vector<std::pair<double, double>>& l) {
        return (l.back().second - l.front().second) / (l.back().first - l.front().first);
    };
    CHECK(slope(lines[1]) / slope(lines[0]) == doctest::Approx(2.0).epsilon(1e-3));
    for (const auto& l : lines)
        for (std::size_t k = 1; k + 1 < l.size(); ++k) {
            const double s = (l[k + 1].second - l[k].second) / (l[k + 1].first - l[k].first);
            CHECK(s == doctest::Approx(slope(l)).epsilon(0.01));
        }
    // The crossing at n = d = 512 is marked, where the two curves meet (n d^2 = n^2 d).
    CHECK(contains(svg, ">n = d = 512</text>"));
    const auto at = svg.find("<line class=\"marker\" x1=\"");
    REQUIRE(at != std::string::npos);
    double mx = 0;
    REQUIRE(std::sscanf(svg.c_str() + at, "<line class=\"marker\" x1=\"%lf", &mx) == 1);
    // On log x, 512 lies halfway between 256 (point 2) and 1024 (point 3).
    CHECK(mx == doctest::Approx((lines[0][2].first + lines[0][3].first) / 2).epsilon(1e-3));
}

TEST_CASE("svg lines: non-positive values are left out of a log axis") {
    attn::io::ArrayInfo info = attn::test::matrix_info(4, 1, "y");
    info.log_y = true;
    const std::string svg = write_lines(info, {1, 0, 10, 100});
    const auto lines = polylines(svg);
    REQUIRE(lines.size() == 2);  // broken at the 0
    CHECK(lines[0].size() == 1);
    CHECK(lines[1].size() == 2);
}
