#include "io/block_average.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace {

// (rows, cols) with element (i, j) = 10 i + j, added in blocks of `step` rows.
attn::io::BlockAverage average(std::size_t rows, std::size_t cols, std::size_t max_rows,
                               std::size_t max_cols, std::size_t step) {
    attn::io::BlockAverage avg(rows, cols, max_rows, max_cols);
    std::vector<double> v(rows * cols);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) v[i * cols + j] = 10.0 * i + j;
    for (std::size_t r = 0; r < rows; r += step)
        avg.add(r, &v[r * cols], std::min(step, rows - r), false);
    return avg;
}

}  // namespace

TEST_CASE("block_average: a grid that fits is the array itself") {
    const auto avg = average(3, 4, 10, 10, 1);
    CHECK_FALSE(avg.averaged());
    CHECK(avg.rows() == 3);
    CHECK(avg.cols() == 4);
    CHECK(avg(2, 3) == 23.0);
    CHECK(avg.finite_range() == std::pair{0.0, 23.0});
}

TEST_CASE("block_average: even blocks are the means of 2 x 2 values") {
    const auto avg = average(4, 4, 2, 2, 3);  // blocks of rows straddle the calls
    CHECK(avg.averaged());
    CHECK(avg.block_rows() == 2);
    CHECK(avg.block_cols() == 2);
    // cell (i, j) = mean of 10 r + c over r in {2i, 2i+1}, c in {2j, 2j+1} = 20 i + 5 + 2 j + 0.5
    CHECK(avg(0, 0) == 5.5);
    CHECK(avg(0, 1) == 7.5);
    CHECK(avg(1, 0) == 25.5);
    CHECK(avg(1, 1) == 27.5);
}

TEST_CASE("block_average: uneven last blocks average only the values they hold") {
    // 5 x 3 into at most 2 x 2: blocks of 3 rows and 2 columns; the last are 2 rows, 1 column.
    const auto avg = average(5, 3, 2, 2, 2);
    CHECK(avg.rows() == 2);
    CHECK(avg.cols() == 2);
    CHECK(avg(0, 0) == (0 + 1 + 10 + 11 + 20 + 21) / 6.0);
    CHECK(avg(0, 1) == (2 + 12 + 22) / 3.0);
    CHECK(avg(1, 0) == (30 + 31 + 40 + 41) / 4.0);
    CHECK(avg(1, 1) == (32 + 42) / 2.0);
    CHECK(avg.finite_range() == std::pair{avg(0, 0), avg(1, 1)});
}

TEST_CASE("block_average: NaN poisons its cell, not the range; float32 rounding on request") {
    attn::io::BlockAverage avg(2, 2, 1, 2);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double v[] = {1.0, nan, 3.0, 0.1};
    avg.add(0, v, 2, true);
    CHECK(avg(0, 0) == 2.0);
    CHECK(std::isnan(avg(0, 1)));
    CHECK(avg.finite_range() == std::pair{2.0, 2.0});
    attn::io::BlockAverage exact(1, 1, 1, 1);
    exact.add(0, &v[3], 1, true);
    CHECK(exact(0, 0) == double(0.1f));
}
