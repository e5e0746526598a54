#include "io/output_file.hpp"

#include <doctest/doctest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

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

namespace {

mode_t mode_of(const std::string& path) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_mode;
}

void write_and_commit(const std::string& path, std::string_view text) {
    attn::io::OutputFile out(path);
    out.write(text);
    out.commit();
}

}  // namespace

TEST_CASE("output file: a FIFO is written in place, not replaced by a file") {
    const std::string fifo = attn::test::tmp_path("pipe");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::string received;
    std::thread reader([&] {
        std::ifstream in(fifo, std::ios::binary);
        received.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    });
    {
        attn::io::OutputFile out(fifo);
        CHECK(out.in_place());
        out.write("through the pipe ");
        out.write(std::string(2 << 20, 'p'));  // beyond the pipe's and the writer's buffers
        out.commit();
    }
    reader.join();
    CHECK(received.size() == 17 + (2u << 20));
    CHECK(received.substr(0, 17) == "through the pipe ");
    CHECK(S_ISFIFO(mode_of(fifo)));
    CHECK(count_entries("pipe") == 1);  // no temporary beside it
}

TEST_CASE("output file: /dev/null stays a character device") {
    write_and_commit("/dev/null", "discarded");
    CHECK(S_ISCHR(mode_of("/dev/null")));
    attn::io::OutputFile out("/dev/null");
    CHECK(out.in_place());
}

TEST_CASE("output file: a Unix socket is written to, not replaced") {
    const std::string path = attn::test::tmp_path("s.sock");
    const int server = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(server >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(path.size() < sizeof(addr.sun_path));
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    REQUIRE(::bind(server, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0);
    REQUIRE(::listen(server, 1) == 0);
    std::string received;
    std::thread reader([&] {
        const int conn = ::accept(server, nullptr, nullptr);
        char buf[4096];
        for (ssize_t n; (n = ::read(conn, buf, sizeof buf)) > 0;)
            received.append(buf, static_cast<std::size_t>(n));
        ::close(conn);
    });
    write_and_commit(path, "over the socket");
    reader.join();
    ::close(server);
    CHECK(received == "over the socket");
    CHECK(S_ISSOCK(mode_of(path)));
}

TEST_CASE("output file: a symbolic link is followed, its target replaced, the link kept") {
    const std::string target = attn::test::tmp_path("real.txt");
    const std::string link = attn::test::tmp_path("link.txt");
    const std::string link2 = attn::test::tmp_path("link2.txt");
    attn::test::write_file(target, "old");
    REQUIRE(::symlink("real.txt", link.c_str()) == 0);  // relative, as ln -s writes them
    REQUIRE(::symlink(link.c_str(), link2.c_str()) == 0);
    write_and_commit(link2, "new");
    struct stat st {};
    REQUIRE(::lstat(link.c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    REQUIRE(::lstat(link2.c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK(attn::test::read_file(target) == "new");
    CHECK(count_entries("real.txt") == 1);

    // A dangling link: its target is created, the link stays.
    const std::string dangling = attn::test::tmp_path("dangling.txt");
    REQUIRE(::symlink("created.txt", dangling.c_str()) == 0);
    write_and_commit(dangling, "made");
    REQUIRE(::lstat(dangling.c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK(attn::test::read_file(attn::test::tmp_path("created.txt")) == "made");
}

TEST_CASE("output file: a replaced file keeps its permission bits; a new one follows umask") {
    const std::string path = attn::test::tmp_path("private.txt");
    attn::test::write_file(path, "secret");
    REQUIRE(::chmod(path.c_str(), 0600) == 0);
    write_and_commit(path, "still secret");
    CHECK((mode_of(path) & 07777) == 0600);
    REQUIRE(::chmod(path.c_str(), 0751) == 0);
    write_and_commit(path, "odd bits");
    CHECK((mode_of(path) & 07777) == 0751);

    const mode_t old_mask = ::umask(027);
    write_and_commit(attn::test::tmp_path("new027.txt"), "x");
    ::umask(022);
    write_and_commit(attn::test::tmp_path("new022.txt"), "x");
    ::umask(old_mask);
    CHECK((mode_of(attn::test::tmp_path("new027.txt")) & 07777) == 0640);
    CHECK((mode_of(attn::test::tmp_path("new022.txt")) & 07777) == 0644);
}

TEST_CASE("output file: a hard link's other name keeps the old content (documented)") {
    const std::string path = attn::test::tmp_path("one.txt");
    const std::string other = attn::test::tmp_path("other.txt");
    attn::test::write_file(path, "old");
    REQUIRE(::link(path.c_str(), other.c_str()) == 0);
    write_and_commit(path, "new");
    CHECK(attn::test::read_file(path) == "new");
    CHECK(attn::test::read_file(other) == "old");
}

TEST_CASE("output file: a directory is refused") {
    CHECK_THROWS_AS(attn::io::OutputFile(attn::test::scratch_dir()), std::system_error);
    CHECK_THROWS_AS(attn::io::OutputFile(attn::test::scratch_dir() + "/"), std::system_error);
}

TEST_CASE("output file: /dev/fd/N and /proc/self/fd/N write to what is open there") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);  // /dev/stdout when standard output is a pipe
    write_and_commit("/dev/fd/" + std::to_string(fds[1]), "into the pipe");
    ::close(fds[1]);
    char buf[64];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    ::close(fds[0]);
    CHECK(std::string(buf, static_cast<std::size_t>(std::max<ssize_t>(n, 0))) == "into the pipe");

    // A file opened by the shell (attn -o /dev/stdout >file): the same file gets the bytes.
    const std::string path = attn::test::tmp_path("redirected.txt");
    attn::test::write_file(path, "a longer old content");
    const int fd = ::open(path.c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    struct stat before {};
    REQUIRE(::stat(path.c_str(), &before) == 0);
    write_and_commit("/proc/self/fd/" + std::to_string(fd), "new");
    ::close(fd);
    struct stat after {};
    REQUIRE(::stat(path.c_str(), &after) == 0);
    CHECK(after.st_ino == before.st_ino);
    CHECK(attn::test::read_file(path) == "new");
}
