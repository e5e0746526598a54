#include "io/directory_sink.hpp"

#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "support/test_files.hpp"
#include "support/write_through.hpp"

namespace {

std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> names;
    DIR* d = ::opendir(dir.c_str());
    REQUIRE(d != nullptr);
    while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

std::string fresh_dir(const std::string& name) {
    const std::string dir = attn::test::tmp_path(name);
    REQUIRE(::mkdir(dir.c_str(), 0777) == 0);
    return dir;
}

void write_array(attn::io::ArraySink& sink, const std::string& name, std::size_t n) {
    attn::io::ArrayInfo info = attn::test::matrix_info(n, 2, name);
    info.name = name;
    sink.begin(info);
    for (std::size_t r = 0; r < n; ++r) {
        const double row[2] = {double(r), 0.5};
        sink.rows(r, row, 1);
    }
    sink.end();
}

}  // namespace

TEST_CASE("directory sink: success leaves exactly one file per array") {
    const std::string dir = fresh_dir("ok");
    {
        attn::io::DirectorySink sink(dir, attn::io::Format::csv, {});
        write_array(sink, "P", 3);
        write_array(sink, "Q", 2);
        CHECK(entries(dir).size() == 2);  // two temporaries, no target yet
        CHECK_FALSE(attn::test::file_exists(dir + "/P.csv"));
        sink.finish();
    }
    CHECK(entries(dir) == std::vector<std::string>{"P.csv", "Q.csv"});
    CHECK(attn::test::read_file(dir + "/P.csv") == "row,0,1\n0,0,0.5\n1,1,0.5\n2,2,0.5\n");
    CHECK(attn::test::read_file(dir + "/Q.csv") == "row,0,1\n0,0,0.5\n1,1,0.5\n");
}

TEST_CASE("directory sink: one array failing leaves nothing, and old files untouched") {
    const std::string dir = fresh_dir("failed");
    attn::test::write_file(dir + "/P.csv", "old P");
    try {
        attn::io::DirectorySink sink(dir + "/", attn::io::Format::csv, {});
        write_array(sink, "P", 3);
        write_array(sink, "Q", 2);
        attn::io::ArrayInfo bad = attn::test::matrix_info(2, 2, "R");
        bad.name = std::string(1, 'R');  // not = "R": g++ 12 -Wrestrict false positive
        sink.begin(bad);
        throw std::runtime_error("computing R failed");
    } catch (const std::runtime_error&) {
    }
    CHECK(entries(dir) == std::vector<std::string>{"P.csv"});
    CHECK(attn::test::read_file(dir + "/P.csv") == "old P");

    // A name the directory cannot hold fails at begin(), and the earlier arrays go too.
    try {
        attn::io::DirectorySink sink(dir, attn::io::Format::csv, {});
        write_array(sink, "Q", 2);
        write_array(sink, "a/b", 2);
    } catch (const std::invalid_argument&) {
    }
    CHECK(entries(dir) == std::vector<std::string>{"P.csv"});
}

TEST_CASE("directory sink: a full disk at the end publishes none of the files") {
    // Q.csv leads to /dev/full: its bytes, held in the buffer until finish(), fail to be
    // written (ENOSPC) after P was complete.
    const std::string dir = fresh_dir("full");
    REQUIRE(::symlink("/dev/full", (dir + "/Q.csv").c_str()) == 0);
    {
        attn::io::DirectorySink sink(dir, attn::io::Format::csv, {});
        write_array(sink, "P", 3);
        write_array(sink, "Q", 2);
        CHECK_THROWS_AS(sink.finish(), std::system_error);
    }
    CHECK(entries(dir) == std::vector<std::string>{"Q.csv"});  // no P.csv, no temporary
}
