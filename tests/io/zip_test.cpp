#include "io/zip.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "io/crc32.hpp"

using namespace std::string_literals;
using attn::io::ZipMember;

namespace {

std::string directory_and_end(const ZipMember& m, std::uint64_t directory_offset) {
    const std::string entry = attn::io::zip_central_header(m);
    return entry + attn::io::zip_end_records(1, directory_offset, entry.size());
}

// A one-member archive as NpzWriter lays it out.
std::string archive(const std::string& name, const std::string& data) {
    const std::uint32_t crc = attn::io::crc32(data);
    std::string out =
        attn::io::zip_local_header(name) + data + attn::io::zip_data_descriptor(crc, data.size());
    return out + directory_and_end({name, crc, data.size(), 0}, out.size());
}

void check_refused(const std::string& bytes, const std::string& field) {
    std::string message;
    try {
        attn::io::read_stored_zip(bytes, "z.npz");
    } catch (const std::invalid_argument& e) {
        message = e.what();
    }
    CAPTURE(message);
    CHECK(message.rfind("z.npz: ", 0) == 0);
    CHECK(message.find(field) != std::string::npos);
}

}  // namespace

// Expected bytes: Python 3.11 zipfile.ZipFile._write_end_record for the same ZipInfo
// (flag_bits 8, external_attr 0o600 << 16), with the file position faked to be large.
TEST_CASE("zip records: central directory and end records as Python's zipfile writes them") {
    CHECK(directory_and_end({"P.npy", 0x12345678, 0x98, 0}, 0xe7) ==
          "\x50\x4b\x01\x02\x14\x03\x14\x00\x08\x00\x00\x00\x00\x00\x21\x00\x78\x56\x34\x12\x98"
          "\x00\x00\x00\x98\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x01"
          "\x00\x00\x00\x00\x50\x2e\x6e\x70\x79\x50\x4b\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00"
          "\x33\x00\x00\x00\xe7\x00\x00\x00\x00\x00"s);
    SUBCASE("a member above 2 GiB - 1: sizes in a ZIP64 extra, ZIP64 end records") {
        CHECK(directory_and_end({"P.npy", 0x12345678, std::uint64_t{3} << 30, 0},
                                (std::uint64_t{3} << 30) + 100) ==
              "\x50\x4b\x01\x02\x2d\x03\x2d\x00\x08\x00\x00\x00\x00\x00\x21\x00\x78\x56\x34\x12"
              "\xff\xff\xff\xff\xff\xff\xff\xff\x05\x00\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00"
              "\x80\x01\x00\x00\x00\x00\x50\x2e\x6e\x70\x79\x01\x00\x10\x00\x00\x00\x00\xc0\x00"
              "\x00\x00\x00\x00\x00\x00\xc0\x00\x00\x00\x00\x50\x4b\x06\x06\x2c\x00\x00\x00\x00"
              "\x00\x00\x00\x2d\x00\x2d\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00"
              "\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x47\x00\x00\x00\x00\x00\x00\x00\x64"
              "\x00\x00\xc0\x00\x00\x00\x00\x50\x4b\x06\x07\x00\x00\x00\x00\xab\x00\x00\xc0\x00"
              "\x00\x00\x00\x01\x00\x00\x00\x50\x4b\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00\x47"
              "\x00\x00\x00\x64\x00\x00\xc0\x00\x00"s);
    }
    SUBCASE("an offset above 2 GiB - 1") {
        CHECK(directory_and_end({"W.npy", 0xCAFEBABE, 200, std::uint64_t{5} << 30},
                                (std::uint64_t{5} << 30) + 300) ==
              "\x50\x4b\x01\x02\x2d\x03\x2d\x00\x08\x00\x00\x00\x00\x00\x21\x00\xbe\xba\xfe\xca"
              "\xc8\x00\x00\x00\xc8\x00\x00\x00\x05\x00\x0c\x00\x00\x00\x00\x00\x00\x00\x00\x00"
              "\x80\x01\xff\xff\xff\xff\x57\x2e\x6e\x70\x79\x01\x00\x08\x00\x00\x00\x00\x40\x01"
              "\x00\x00\x00\x50\x4b\x06\x06\x2c\x00\x00\x00\x00\x00\x00\x00\x2d\x00\x2d\x00\x00"
              "\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00"
              "\x00\x00\x00\x3f\x00\x00\x00\x00\x00\x00\x00\x2c\x01\x00\x40\x01\x00\x00\x00\x50"
              "\x4b\x06\x07\x00\x00\x00\x00\x6b\x01\x00\x40\x01\x00\x00\x00\x01\x00\x00\x00\x50"
              "\x4b\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00\x3f\x00\x00\x00\xff\xff\xff\xff\x00"
              "\x00"s);
    }
    SUBCASE("size and offset both above 4 GiB") {
        CHECK(
            directory_and_end({"W.npy", 0xCAFEBABE, std::uint64_t{5} << 30, std::uint64_t{3} << 30},
                              std::uint64_t{9} << 30) ==
            "\x50\x4b\x01\x02\x2d\x03\x2d\x00\x08\x00\x00\x00\x00\x00\x21\x00\xbe\xba\xfe\xca"
            "\xff\xff\xff\xff\xff\xff\xff\xff\x05\x00\x1c\x00\x00\x00\x00\x00\x00\x00\x00\x00"
            "\x80\x01\xff\xff\xff\xff\x57\x2e\x6e\x70\x79\x01\x00\x18\x00\x00\x00\x00\x40\x01"
            "\x00\x00\x00\x00\x00\x00\x40\x01\x00\x00\x00\x00\x00\x00\xc0\x00\x00\x00\x00\x50"
            "\x4b\x06\x06\x2c\x00\x00\x00\x00\x00\x00\x00\x2d\x00\x2d\x00\x00\x00\x00\x00\x00"
            "\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x4f"
            "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x40\x02\x00\x00\x00\x50\x4b\x06\x07\x00"
            "\x00\x00\x00\x4f\x00\x00\x40\x02\x00\x00\x00\x01\x00\x00\x00\x50\x4b\x05\x06\x00"
            "\x00\x00\x00\x01\x00\x01\x00\x4f\x00\x00\x00\xff\xff\xff\xff\x00\x00"s);
    }
}

TEST_CASE("zip records: local header and data descriptor of a streamed member") {
    // numpy.savez into a pipe: flag 0x0008, zero CRC and sizes, a zeroed ZIP64 extra.
    CHECK(attn::io::zip_local_header("P.npy") ==
          "PK\x03\x04\x14\x00\x08\x00\x00\x00\x00\x00\x21\x00\x00\x00\x00\x00\x00\x00\x00\x00"
          "\x00\x00\x00\x00\x05\x00\x14\x00P.npy\x01\x00\x10\x00"s +
              std::string(16, '\0'));
    CHECK(attn::io::zip_data_descriptor(0x2a00e94f, 0x98) ==
          "PK\x07\x08\x4f\xe9\x00\x2a\x98\x00\x00\x00\x00\x00\x00\x00\x98\x00\x00\x00\x00\x00"
          "\x00\x00"s);
    CHECK((attn::io::zip_local_header("\xc3\xa9.npy")[7] & 0x08) == 0x08);  // UTF-8 flag 0x0800
}

TEST_CASE("read_stored_zip: reads what the writer lays out and checks it") {
    const std::string good = archive("a.npy", "hello, zip");
    const auto entries = attn::io::read_stored_zip(good, "z.npz");
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].name == "a.npy");
    CHECK(entries[0].data == "hello, zip");

    std::string bad_crc = good;
    bad_crc[good.find("hello")] = 'j';
    check_refused(bad_crc, "a.npy: CRC-32 mismatch");
    check_refused("", "zip");
    check_refused("not a zip file at all, just some text", "zip");
    check_refused(good.substr(good.size() - 22), "central directory");  // end record only
    std::string stretched = good;  // the directory claims a member larger than the file
    stretched[stretched.size() - 22 - 5 - 46 + 20] = '\x7f';
    stretched[stretched.size() - 22 - 5 - 46 + 24] = '\x7f';
    check_refused(stretched, "a.npy");
    std::string deflated = good;
    deflated[good.size() - 22 - 5 - 46 + 10] = 8;  // method 8: deflate
    check_refused(deflated, "compression method 8");
}
