#include "io/output_file.hpp"

#include <doctest/doctest.h>

#include <dirent.h>

#include <stdexcept>
#include <system_error>

#include "support/test_files.hpp"

namespace {

// Files in the scratch directory whose name starts with `prefix` (temporaries included).
int count_entries(const std::string& prefix) {
    int n = 0;
    DIR* dir = ::opendir(attn::test::scratch_dir().c_str());
    while (dirent* e = ::readdir(dir))
        if (std::string(e->d_name).find(prefix) != std::string::npos) ++n;
    ::closedir(dir);
    return n;
}

}  // namespace

TEST_CASE("output file: appears whole at commit, not before") {
    const std::string path = attn::test::tmp_path("whole.txt");
    {
        attn::io::OutputFile out(path);
        out.write("hello ");
        out.write(std::string(3 << 20, 'x'));  // larger than the buffer
        CHECK_FALSE(attn::test::file_exists(path));
        CHECK(out.bytes_written() == 6 + (3u << 20));
        out.commit();
    }
    CHECK(attn::test::read_file(path).size() == 6 + (3u << 20));
    CHECK(attn::test::read_file(path).substr(0, 6) == "hello ");
}

TEST_CASE("output file: an error before commit leaves no file and no temporary") {
    const std::string path = attn::test::tmp_path("failed.txt");
    try {
        attn::io::OutputFile out(path);
        out.write("partial");
        throw std::runtime_error("computation failed");
    } catch (const std::runtime_error&) {
    }
    CHECK_FALSE(attn::test::file_exists(path));
    CHECK(count_entries("failed.txt") == 0);
}

TEST_CASE("output file: an existing file is replaced only on success") {
    const std::string path = attn::test::tmp_path("keep.txt");
    {
        attn::io::OutputFile out(path);
        out.write("old");
        out.commit();
    }
    {
        attn::io::OutputFile out(path);
        out.write("new but abandoned");
    }
    CHECK(attn::test::read_file(path) == "old");
}

TEST_CASE("output file: a missing directory is an error naming the path") {
    CHECK_THROWS_AS(attn::io::OutputFile("/nonexistent-dir/x.csv"), std::system_error);
    try {
        attn::io::OutputFile out("/nonexistent-dir/x.csv");
    } catch (const std::system_error& e) {
        CHECK(std::string(e.what()).find("/nonexistent-dir/x.csv") != std::string::npos);
    }
}
