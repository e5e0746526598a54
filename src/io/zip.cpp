#include "io/zip.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "io/crc32.hpp"

namespace attn::io {

namespace {

// Field values as Python's zipfile (3.11) writes them.
constexpr std::uint16_t kVersion = 20;       // DEFAULT_VERSION
constexpr std::uint16_t kVersionZip64 = 45;  // ZIP64_VERSION
constexpr std::uint8_t kMadeByUnix = 3;      // create_system
constexpr std::uint16_t kFlagDescriptor = 0x0008;
constexpr std::uint16_t kFlagUtf8 = 0x0800;
constexpr std::uint16_t kDosDate1980 = 0x0021;  // 1980-01-01, ZipInfo's default date
constexpr std::uint32_t kExternalAttr = 0600u << 16;
constexpr std::uint64_t kZip64Limit = (std::uint64_t{1} << 31) - 1;  // zipfile.ZIP64_LIMIT
constexpr std::uint64_t kCountLimit = 0xFFFF;

constexpr std::uint32_t kLocalSig = 0x04034b50;
constexpr std::uint32_t kDescriptorSig = 0x08074b50;
constexpr std::uint32_t kCentralSig = 0x02014b50;
constexpr std::uint32_t kEndSig = 0x06054b50;
constexpr std::uint32_t kEnd64Sig = 0x06064b50;
constexpr std::uint32_t kLocator64Sig = 0x07064b50;
constexpr std::size_t kLocalSize = 30;
constexpr std::size_t kCentralSize = 46;
constexpr std::size_t kEndSize = 22;
constexpr std::size_t kEnd64Size = 56;
constexpr std::size_t kLocator64Size = 20;

void put16(std::string& out, std::uint64_t v) {
    for (int b = 0; b < 2; ++b) out.push_back(static_cast<char>((v >> (8 * b)) & 0xFFu));
}
void put32(std::string& out, std::uint64_t v) {
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((v >> (8 * b)) & 0xFFu));
}
void put64(std::string& out, std::uint64_t v) {
    for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((v >> (8 * b)) & 0xFFu));
}

std::uint16_t name_flags(const std::string& name) {
    for (const char c : name)
        if (static_cast<unsigned char>(c) >= 0x80) return kFlagDescriptor | kFlagUtf8;
    return kFlagDescriptor;
}

void check_name(const std::string& name) {
    if (name.size() > 0xFFFF)
        throw std::invalid_argument(
            fmt::format("zip: member name of {} bytes is longer than 65535", name.size()));
}

}  // namespace

std::string zip_local_header(const std::string& name) {
    check_name(name);
    std::string out;
    put32(out, kLocalSig);
    put16(out, kVersion);
    put16(out, name_flags(name));
    put16(out, 0);  // method: stored
    put16(out, 0);  // time 00:00:00
    put16(out, kDosDate1980);
    put32(out, 0);  // CRC, compressed and uncompressed size: in the data descriptor
    put32(out, 0);
    put32(out, 0);
    put16(out, name.size());
    put16(out, 20);  // extra length
    out += name;
    put16(out, 1);  // ZIP64 extra: id 1, 16 bytes, uncompressed and compressed size
    put16(out, 16);
    put64(out, 0);
    put64(out, 0);
    return out;
}

std::string zip_data_descriptor(std::uint32_t crc, std::uint64_t size) {
    std::string out;
    put32(out, kDescriptorSig);
    put32(out, crc);
    put64(out, size);  // compressed
    put64(out, size);  // uncompressed
    return out;
}

std::string zip_central_header(const ZipMember& m) {
    check_name(m.name);
    std::vector<std::uint64_t> zip64;  // in APPNOTE order: sizes, then offset
    const bool big_size = m.size > kZip64Limit;
    const bool big_offset = m.offset > kZip64Limit;
    if (big_size) zip64 = {m.size, m.size};
    if (big_offset) zip64.push_back(m.offset);
    const std::uint16_t version = zip64.empty() ? kVersion : kVersionZip64;

    std::string out;
    put32(out, kCentralSig);
    out.push_back(static_cast<char>(version));
    out.push_back(static_cast<char>(kMadeByUnix));
    put16(out, version);
    put16(out, name_flags(m.name));
    put16(out, 0);  // method: stored
    put16(out, 0);  // time
    put16(out, kDosDate1980);
    put32(out, m.crc);
    put32(out, big_size ? 0xFFFFFFFFu : m.size);
    put32(out, big_size ? 0xFFFFFFFFu : m.size);
    put16(out, m.name.size());
    put16(out, zip64.empty() ? 0 : 4 + 8 * zip64.size());
    put16(out, 0);  // comment length
    put16(out, 0);  // disk number
    put16(out, 0);  // internal attributes
    put32(out, kExternalAttr);
    put32(out, big_offset ? 0xFFFFFFFFu : m.offset);
    out += m.name;
    if (!zip64.empty()) {
        put16(out, 1);
        put16(out, 8 * zip64.size());
        for (const std::uint64_t v : zip64) put64(out, v);
    }
    return out;
}

std::string zip_end_records(std::uint64_t count, std::uint64_t directory_offset,
                            std::uint64_t directory_size) {
    std::string out;
    if (count > kCountLimit || directory_offset > kZip64Limit || directory_size > kZip64Limit) {
        put32(out, kEnd64Sig);
        put64(out, 44);  // size of the rest of this record
        put16(out, kVersionZip64);
        put16(out, kVersionZip64);
        put32(out, 0);  // this disk
        put32(out, 0);  // disk with the directory
        put64(out, count);
        put64(out, count);
        put64(out, directory_size);
        put64(out, directory_offset);
        put32(out, kLocator64Sig);
        put32(out, 0);
        put64(out, directory_offset + directory_size);  // where the ZIP64 end record is
        put32(out, 1);                                  // total disks
        count = std::min<std::uint64_t>(count, 0xFFFF);
        directory_size = std::min<std::uint64_t>(directory_size, 0xFFFFFFFF);
        directory_offset = std::min<std::uint64_t>(directory_offset, 0xFFFFFFFF);
    }
    put32(out, kEndSig);
    put16(out, 0);
    put16(out, 0);
    put16(out, count);
    put16(out, count);
    put32(out, directory_size);
    put32(out, directory_offset);
    put16(out, 0);  // comment length
    return out;
}

// ---- reading -------------------------------------------------------------------------

namespace {

class Reader {
  public:
    Reader(std::string_view archive, const std::string& name) : a_(archive), name_(name) {}

    [[noreturn]] void fail(std::string_view field, const std::string& what) const {
        throw std::invalid_argument(fmt::format("{}: {}: {}", name_, field, what));
    }
    void need(std::uint64_t pos, std::uint64_t size, std::string_view field) const {
        if (pos > a_.size() || size > a_.size() - pos)
            fail(field, fmt::format("{} bytes at offset {} run past the end of the {}-byte file",
                                    size, pos, a_.size()));
    }
    std::uint64_t get(std::uint64_t pos, int bytes) const {
        std::uint64_t v = 0;
        for (int b = 0; b < bytes; ++b)
            v |= std::uint64_t{static_cast<unsigned char>(a_[pos + b])} << (8 * b);
        return v;
    }
    std::string_view view(std::uint64_t pos, std::uint64_t size) const {
        return a_.substr(pos, size);
    }
    std::uint64_t size() const { return a_.size(); }

  private:
    std::string_view a_;
    const std::string& name_;
};

}  // namespace

std::vector<ZipEntry> read_stored_zip(std::string_view archive, const std::string& name) {
    const Reader r(archive, name);
    // The end record is the last PK\5\6 within the final 22 + 65535 (comment) bytes.
    if (archive.size() < kEndSize)
        r.fail("zip", "too short for a zip end record; not an npz (zip) file");
    std::uint64_t end = archive.size() - kEndSize;
    const std::uint64_t lowest = end > 0xFFFF ? end - 0xFFFF : 0;
    while (r.get(end, 4) != kEndSig) {
        if (end == lowest) r.fail("zip", "no end of central directory record; not a zip file");
        --end;
    }
    std::uint64_t count = r.get(end + 10, 2);
    std::uint64_t dir_size = r.get(end + 12, 4);
    std::uint64_t dir_offset = r.get(end + 16, 4);
    if (end >= kLocator64Size && r.get(end - kLocator64Size, 4) == kLocator64Sig) {
        const std::uint64_t end64 = r.get(end - kLocator64Size + 8, 8);
        r.need(end64, kEnd64Size, "zip64 end record");
        if (r.get(end64, 4) != kEnd64Sig) r.fail("zip64 end record", "bad signature");
        count = r.get(end64 + 32, 8);
        dir_size = r.get(end64 + 40, 8);
        dir_offset = r.get(end64 + 48, 8);
    }
    r.need(dir_offset, dir_size, "central directory");

    std::vector<ZipEntry> entries;
    std::uint64_t pos = dir_offset;
    for (std::uint64_t k = 0; k < count; ++k) {
        r.need(pos, kCentralSize, "central directory");
        if (r.get(pos, 4) != kCentralSig)
            r.fail("central directory", fmt::format("bad signature for entry {}", k));
        const auto flags = r.get(pos + 8, 2);
        const auto method = r.get(pos + 10, 2);
        const auto crc = static_cast<std::uint32_t>(r.get(pos + 16, 4));
        std::uint64_t csize = r.get(pos + 20, 4);
        std::uint64_t usize = r.get(pos + 24, 4);
        const auto name_len = r.get(pos + 28, 2);
        const auto extra_len = r.get(pos + 30, 2);
        const auto comment_len = r.get(pos + 32, 2);
        std::uint64_t local = r.get(pos + 42, 4);
        r.need(pos + kCentralSize, name_len + extra_len + comment_len, "central directory");
        const std::string member(r.view(pos + kCentralSize, name_len));
        // ZIP64 extra (id 1): the 0xFFFFFFFF fields, in the order usize, csize, offset.
        for (std::uint64_t e = pos + kCentralSize + name_len;
             e + 4 <= pos + kCentralSize + name_len + extra_len;) {
            const auto id = r.get(e, 2);
            const auto len = r.get(e + 2, 2);
            if (e + 4 + len > pos + kCentralSize + name_len + extra_len)
                r.fail(member, "extra field runs past its entry");
            if (id == 1) {
                std::uint64_t f = e + 4;
                auto take = [&](std::uint64_t& field) {
                    if (field != 0xFFFFFFFFu) return;
                    if (f + 8 > e + 4 + len) r.fail(member, "ZIP64 extra field too short");
                    field = r.get(f, 8);
                    f += 8;
                };
                take(usize);
                take(csize);
                take(local);
            }
            e += 4 + len;
        }
        if (flags & 0x0001) r.fail(member, "encrypted members are not supported");
        if (method != 0)
            r.fail(member, fmt::format("compression method {} is not supported; attn reads "
                                       "stored npz files as numpy.savez writes them, not "
                                       "numpy.savez_compressed",
                                       method));
        if (csize != usize)
            r.fail(member,
                   fmt::format("stored member with compressed size {} != size {}", csize, usize));
        r.need(local, kLocalSize, member);
        if (r.get(local, 4) != kLocalSig) r.fail(member, "bad local header signature");
        const std::uint64_t data = local + kLocalSize + r.get(local + 26, 2) + r.get(local + 28, 2);
        r.need(data, usize, member);
        const std::string_view bytes = r.view(data, usize);
        const std::uint32_t actual = crc32(bytes);
        if (actual != crc)
            r.fail(member, fmt::format("CRC-32 mismatch: the directory says {:08x}, the data "
                                       "has {:08x}",
                                       crc, actual));
        entries.push_back({member, bytes});
        pos += kCentralSize + name_len + extra_len + comment_len;
    }
    return entries;
}

}  // namespace attn::io
