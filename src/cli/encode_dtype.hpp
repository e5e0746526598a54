// bfloat16 and float16 tables and --show error for encode's arrays: a double producer's values
// rounded once to the dtype (near a midpoint, from the exact double-double value), and the
// value minus the exact value in float64.
#pragma once

#include <cstddef>
#include <functional>

#include "attn/positions/angle.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

/// The exact form of an array: its double producer is within abs + rel |v| of the exact value,
/// and at(row, column) is that value as a double-double (error below 2^-100).
struct ExactForm {
    double abs = 0, rel = 0;
    std::function<positions::DoubleDouble(std::size_t row, std::size_t column)> at;
};

/// s's values rounded once to its dtype when that is bfloat16 or float16 (s unchanged
/// otherwise, and for an array without an exact form: integers).
io::MatrixStream rounded_once(io::MatrixStream s, ExactForm exact);

/// NAME_error (float64): shown's values minus the exact values. reference is the same array at
/// double quality (within ~1e-15 of exact); with exact_double, shown holds the exact values
/// rounded to double and the error is formed from exact.at, whose low part it is.
io::MatrixStream error_stream(io::MatrixStream shown, io::MatrixStream reference, ExactForm exact,
                              bool exact_double);

}  // namespace attn::cli
