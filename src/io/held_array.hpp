// Arrays held in memory as streams: a small array of any shape (a table's column, a partial's
// member) written by every writer as the arrays the writer streams.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/dtype.hpp"
#include "io/matrix_stream.hpp"

namespace attn::io {

/// `name` (its title too) of `shape`, its values row-major (as many as the shape's product),
/// stored as dtype (float64, or int64 for whole numbers).
MatrixStream held_array(std::string name, std::vector<std::size_t> shape,
                        std::vector<double> values, Dtype dtype = Dtype::float64);

/// A 1-D array of texts, numpy's '<U' in npy and npz.
MatrixStream held_strings(std::string name, std::vector<std::string> values);

}  // namespace attn::io
