// NumPy's .npy format (numpy.lib.format, versions 1.0, 2.0 and 3.0):
//
//   offset 0   "\x93NUMPY"                 magic, 6 bytes
//   offset 6   major, minor                1 byte each: 1.0, 2.0 or 3.0
//   offset 8   header length HLEN          uint16 LE (1.0) or uint32 LE (2.0, 3.0)
//   offset 10 or 12: header, HLEN bytes    a Python dict literal, e.g.
//       {'descr': '<f4', 'fortran_order': False, 'shape': (60, 32), }
//     padded with spaces and ended by '\n' so that the data starts at a multiple of 64
//     (latin-1 in 1.0/2.0, utf-8 in 3.0).
//   then the data: prod(shape) items of descr's type, C order unless fortran_order.
//
// attn writes version 1.0 (2.0 only when the header exceeds 65535 bytes), little-endian
// float32 or float64, C order, streamed row by row. It reads float32/float64 only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "io/array_sink.hpp"
#include "io/dtype.hpp"
#include "io/output_file.hpp"

namespace attn::io {

/// The complete preamble numpy 1.24 writes before the data of a C-order array: magic,
/// version, header length and the padded header dict. Byte for byte what np.save writes,
/// including the spare spaces numpy leaves for growing the first axis.
/// Shapes print as Python tuples: () for 0-d, (5,) for 1-d, (60, 32) for 2-d.
std::string npy_header(Dtype dtype, const std::vector<std::size_t>& shape);

/// The bytes of one .npy file for a streamed array, in order: header(), then the rows
/// converted once to little-endian info.dtype (a text array: header() is the whole file and
/// the rows add nothing). Used by NpyWriter and NpzWriter.
/// Throws std::invalid_argument when the array's byte size overflows 64 bits.
class NpyEncoder {
  public:
    using Sink = std::function<void(const char* data, std::size_t size)>;

    explicit NpyEncoder(const ArrayInfo& info);

    const std::string& header() const { return header_; }
    std::uint64_t file_size() const { return header_.size() + data_size_; }

    /// Converts n_rows rows (n_rows * columns values) and passes the bytes to sink in
    /// bounded pieces. Rows must arrive in order and not beyond the shape (std::logic_error).
    void encode(std::size_t first_row, const double* values, std::size_t n_rows, const Sink& sink);
    /// std::logic_error unless every row of the shape has arrived.
    void check_complete() const;

  private:
    std::string name_;
    Dtype dtype_;
    std::size_t columns_;
    std::uint64_t rows_;
    std::uint64_t data_size_;
    std::uint64_t next_row_ = 0;
    std::string header_;  // for a text array (ArrayInfo::strings), the whole file
    bool text_ = false;
};

/// An ArraySink writing one array as a .npy file. The header goes out at begin() (the
/// shape is known up front); memory does not grow with the number of rows.
/// A second array is refused with std::invalid_argument; end() requires exactly
/// info.rows() rows (std::logic_error). The caller commits the OutputFile.
class NpyWriter : public ArraySink {
  public:
    explicit NpyWriter(OutputFile& out) : out_(out) {}

    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;
    /// std::logic_error unless exactly one array was begun and ended.
    void finish() override;

  private:
    OutputFile& out_;
    std::optional<NpyEncoder> encoder_;  // set by the first (and only) begin()
    bool ended_ = false;
};

/// An array read from a .npy file: shape, the stored dtype, and values converted to
/// double in C order (row-major), prod(shape) of them.
struct NpyArray {
    std::vector<std::size_t> shape;
    Dtype dtype = Dtype::float64;
    std::vector<double> values;
};

/// Strict reader for user input. Accepts versions 1.0/2.0/3.0, descr '<f4' or '<f8'
/// ('=' too on little-endian hosts), either fortran_order (Fortran data is reordered to
/// C order). Checks that the data is exactly prod(shape) * itemsize bytes before
/// allocating for it; a non-seekable stream is read in bounded chunks.
/// Malformed input: std::invalid_argument, one line "<name>: <field>: <problem>".
/// Read errors of the stream: std::system_error.
NpyArray read_npy(std::istream& in, const std::string& name_for_messages);

/// read_npy on a file; "-" reads standard input. An unopenable file: std::system_error.
NpyArray read_npy(const std::string& path);

/// Whether the file at `path` starts with the NPY magic (false when it cannot be read).
bool is_npy_file(const std::string& path);

}  // namespace attn::io
