// Stored (uncompressed) zip archives, written the way Python's zipfile writes them to a
// stream that cannot seek (numpy.savez into a pipe), and read back with CRC checks.
// All integers little-endian. A streamed archive is, per member:
//
//   local header   PK\3\4  version 20, flags 0x0008 (sizes follow the data; 0x0800 too
//                  for a UTF-8 name), method 0 (stored), time 00:00 date 1980-01-01,
//                  CRC/sizes 0, name, ZIP64 extra (id 1: two zero uint64 sizes)
//   data           the member's bytes
//   descriptor     PK\7\8  CRC-32, size, size (uint64 each, ZIP64 form)
//
// then a central directory entry PK\1\2 per member (made by 20 on Unix, external
// attributes rw------- as zipfile sets them; sizes and offset in a ZIP64 extra when
// above 2^31 - 1, zipfile's limit), and the end record PK\5\6, preceded by the ZIP64
// end record PK\6\6 and locator PK\6\7 when there are more than 65535 members or the
// directory's offset or size is above 2^31 - 1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn::io {

/// What the central directory records of one streamed member.
struct ZipMember {
    std::string name;
    std::uint32_t crc = 0;
    std::uint64_t size = 0;    // stored: compressed size = uncompressed size
    std::uint64_t offset = 0;  // of its local header from the start of the archive
};

/// The local header of a member whose CRC and size follow its data.
std::string zip_local_header(const std::string& name);
/// The ZIP64 data descriptor written after a member's data.
std::string zip_data_descriptor(std::uint32_t crc, std::uint64_t size);
/// One central directory entry.
std::string zip_central_header(const ZipMember& member);
/// The end records for count members whose directory starts at directory_offset and
/// is directory_size bytes long.
std::string zip_end_records(std::uint64_t count, std::uint64_t directory_offset,
                            std::uint64_t directory_size);

/// A member of an archive read by read_stored_zip; data points into the archive.
struct ZipEntry {
    std::string name;
    std::string_view data;
};

/// The members of a whole archive held in memory, in central directory order. Stored
/// members only; checks every offset and size against the archive's bounds and every
/// member's CRC-32. Failures: std::invalid_argument "<archive_name>: <member or field>: ...".
std::vector<ZipEntry> read_stored_zip(std::string_view archive, const std::string& archive_name);

}  // namespace attn::io
