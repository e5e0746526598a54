#include "runtime/mapped_file.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <system_error>

#include "support/test_files.hpp"
#include "support/text.hpp"

using attn::runtime::MappedFile;

namespace {

/// kB of file-backed pages resident in this process (/proc/self/status RssFile).
long rss_file_kb() {
    std::ifstream status("/proc/self/status");
    std::string key;
    long value = 0;
    while (status >> key) {
        if (key == "RssFile:") {
            status >> value;
            return value;
        }
        status.ignore(1 << 20, '\n');
    }
    return -1;
}

}  // namespace

TEST_CASE("MappedFile: the file's bytes, in place") {
    const std::string path = attn::test::tmp_path("bytes.bin");
    attn::test::write_file(path, std::string("\x01\x02safetensors\xff", 14));
    MappedFile file(path);
    CHECK(file.size() == 14);
    CHECK(file.path() == path);
    REQUIRE(file.bytes().size() == 14);
    CHECK(file.bytes()[0] == std::byte{1});
    CHECK(file.bytes()[13] == std::byte{0xff});
    MappedFile moved(std::move(file));
    CHECK(moved.size() == 14);
    CHECK(moved.bytes()[1] == std::byte{2});
}

TEST_CASE("MappedFile: an empty file maps to nothing; a folder or a missing file is refused") {
    const std::string empty = attn::test::tmp_path("empty.bin");
    attn::test::write_file(empty, "");
    CHECK(MappedFile(empty).bytes().empty());
    try {
        MappedFile missing(attn::test::tmp_path("missing.safetensors"));
        FAIL("mapped a missing file");
    } catch (const std::system_error& e) {
        CHECK(attn::test::contains(e.what(), "missing.safetensors"));
        CHECK(e.code().value() == ENOENT);
    }
    CHECK_THROWS_AS(MappedFile(attn::test::scratch_dir()), std::system_error);
}

TEST_CASE("MappedFile: release hands resident pages back, and they read again from the file") {
    const std::size_t size = 32 << 20;
    std::string content(size, '\0');
    for (std::size_t i = 0; i < size; i += 4096) content[i] = static_cast<char>(i / 4096 % 251);
    const std::string path = attn::test::tmp_path("pages.bin");
    attn::test::write_file(path, content);
    const MappedFile file(path);
    const long before = rss_file_kb();
    long sum = 0;
    for (std::size_t i = 0; i < size; i += 4096) sum += static_cast<long>(file.bytes()[i]);
    const long touched = rss_file_kb();
    CHECK(touched - before >= 30 * 1024);  // 32 MiB paged in
    file.release(0, size);
    const long released = rss_file_kb();
    CHECK(touched - released >= 30 * 1024);
    long again = 0;
    for (std::size_t i = 0; i < size; i += 4096) again += static_cast<long>(file.bytes()[i]);
    CHECK(again == sum);
    // Only whole pages inside the range are released: a range inside one page keeps it.
    file.release(1, 100);
    file.release(size + 5, 10);  // past the end: nothing
    CHECK(file.bytes()[4096] == std::byte{1});
}
