#include "io/npz.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "io/input_file.hpp"
#include "io/npy_strings.hpp"

namespace attn::io {

NpzWriter::NpzWriter(OutputFile& out) : out_(out), start_(out.bytes_written()) {}

void NpzWriter::write(const char* data, std::size_t size) {
    crc_.update(data, size);
    size_ += size;
    out_.write(data, size);
}

void NpzWriter::begin(const ArrayInfo& info) {
    if (finished_) throw std::logic_error("npz: begin() after finish()");
    if (encoder_) throw std::logic_error("npz: begin() before the previous array's end()");
    if (info.name.empty()) throw std::invalid_argument("npz: every array needs a name");
    const std::string member = info.name + ".npy";
    if (names_.count(member))
        throw std::invalid_argument(
            fmt::format("npz: two arrays are named '{}'; member names must differ", info.name));
    NpyEncoder encoder(info);
    const std::string local = zip_local_header(member);
    members_.push_back({member, 0, 0, position()});
    names_.insert(member);
    encoder_.emplace(std::move(encoder));
    out_.write(local);
    crc_ = Crc32{};
    size_ = 0;
    write(encoder_->header().data(), encoder_->header().size());
}

void NpzWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    if (!encoder_) throw std::logic_error("npz: rows() outside begin()/end()");
    encoder_->encode(first_row, values, n_rows,
                     [this](const char* data, std::size_t size) { write(data, size); });
}

void NpzWriter::end() {
    if (!encoder_) throw std::logic_error("npz: end() without begin()");
    encoder_->check_complete();
    encoder_.reset();
    members_.back().crc = crc_.value();
    members_.back().size = size_;
    out_.write(zip_data_descriptor(crc_.value(), size_));
}

void NpzWriter::add(const std::string& name, const std::string& npy) {
    if (finished_) throw std::logic_error("npz: add() after finish()");
    if (encoder_) throw std::logic_error("npz: add() before the previous array's end()");
    if (name.empty()) throw std::invalid_argument("npz: every array needs a name");
    const std::string member = name + ".npy";
    if (!names_.insert(member).second)
        throw std::invalid_argument(
            fmt::format("npz: two arrays are named '{}'; member names must differ", name));
    members_.push_back({member, 0, 0, position()});
    out_.write(zip_local_header(member));
    crc_ = Crc32{};
    size_ = 0;
    write(npy.data(), npy.size());
    members_.back().crc = crc_.value();
    members_.back().size = size_;
    out_.write(zip_data_descriptor(crc_.value(), size_));
}

void NpzWriter::finish() {
    if (finished_) throw std::logic_error("npz: finish() called twice");
    if (encoder_) throw std::logic_error("npz: finish() before the last array's end()");
    const std::uint64_t directory = position();
    for (const ZipMember& m : members_) out_.write(zip_central_header(m));
    out_.write(zip_end_records(members_.size(), directory, position() - directory));
    finished_ = true;
}

std::map<std::string, NpyArray> read_npz(std::istream& in, const std::string& name) {
    std::string archive;
    std::array<char, 1 << 16> buffer;
    while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0)
        archive.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw std::system_error(std::make_error_code(std::errc::io_error), name);

    std::map<std::string, NpyArray> arrays;
    for (const ZipEntry& e : read_stored_zip(archive, name)) {
        const std::string_view suffix = ".npy";
        if (e.name.size() <= suffix.size() ||
            e.name.compare(e.name.size() - suffix.size(), suffix.size(), suffix) != 0)
            throw std::invalid_argument(fmt::format(
                "{}: {}: not an .npy member; an npz holds <name>.npy files", name, e.name));
        const std::string key = e.name.substr(0, e.name.size() - suffix.size());
        if (arrays.count(key))
            throw std::invalid_argument(
                fmt::format("{}: {}: the archive holds this member twice", name, e.name));
        std::istringstream member(std::string(e.data));
        arrays.emplace(key, read_npy(member, name + ": " + e.name));
    }
    return arrays;
}

std::map<std::string, NpyArray> read_npz(const std::string& path) {
    InputFile input(path, true);
    return read_npz(input.stream(), input.name());
}

}  // namespace attn::io
