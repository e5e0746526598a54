// NumPy's .npz: a zip archive whose members are "<name>.npy" files, as numpy.savez
// writes it (stored, not compressed). attn streams each member with a data descriptor
// after its data, exactly as numpy.savez does into a pipe; layouts in io/zip.hpp.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/array_sink.hpp"
#include "io/crc32.hpp"
#include "io/npy.hpp"
#include "io/output_file.hpp"
#include "io/zip.hpp"

namespace attn::io {

/// An ArraySink writing every array as member "<info.name>.npy" of one npz archive.
/// Memory holds one directory record per member, not the members. numpy.load and
/// Python's zipfile read the result; np.savez(sys.stdout.buffer, ...) into a pipe
/// writes the same bytes. A duplicate or empty name: std::invalid_argument.
/// finish() writes the central directory; the caller then commits the OutputFile.
class NpzWriter : public ArraySink {
  public:
    explicit NpzWriter(OutputFile& out);

    void begin(const ArrayInfo& info) override;
    void rows(std::size_t first_row, const double* values, std::size_t n_rows) override;
    void end() override;
    void finish() override;
    /// A member "<name>.npy" whose .npy bytes are made whole (npy_string_array's text
    /// arrays), between two arrays. Same name rules as begin().
    void add(const std::string& name, const std::string& npy);

  private:
    void write(const char* data, std::size_t size);
    std::uint64_t position() const { return out_.bytes_written() - start_; }

    OutputFile& out_;
    std::uint64_t start_;  // offsets in the archive count from here
    std::vector<ZipMember> members_;
    std::set<std::string> names_;
    std::optional<NpyEncoder> encoder_;  // the member being written
    Crc32 crc_;
    std::uint64_t size_ = 0;
    bool finished_ = false;
};

/// Every "<name>.npy" member of an npz file, by name, read strictly (read_npy) after
/// checking each member's CRC-32. Reads the whole archive into memory. Stored members
/// only (numpy.savez; not savez_compressed). Failures: std::invalid_argument naming the
/// file, and the member when it is one member's fault.
std::map<std::string, NpyArray> read_npz(std::istream& in, const std::string& name_for_messages);

/// read_npz on a file; "-" reads standard input. An unopenable file: std::system_error.
std::map<std::string, NpyArray> read_npz(const std::string& path);

}  // namespace attn::io
