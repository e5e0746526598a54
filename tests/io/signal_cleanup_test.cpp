#include "io/signal_cleanup.hpp"

#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include "io/output_file.hpp"
#include "support/test_files.hpp"

namespace {

// Entries of the scratch directory whose name contains `part`.
int entries_containing(const std::string& part) {
    int n = 0;
    DIR* dir = ::opendir(attn::test::scratch_dir().c_str());
    while (dirent* e = ::readdir(dir))
        if (std::string(e->d_name).find(part) != std::string::npos) ++n;
    ::closedir(dir);
    return n;
}

// In a child: opens two outputs, writes, tells the parent through a pipe, waits for sig.
// Returns the child's wait status.
int killed_while_writing(int sig) {
    const std::string a = attn::test::tmp_path("sig_a.txt");
    const std::string b = attn::test::tmp_path("sig_b.txt");
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::close(ready[0]);
        attn::io::OutputFile out_a(a);
        attn::io::OutputFile out_b(b);
        out_a.write(std::string(3 << 20, 'a'));  // past the buffer: bytes on disk
        out_b.write("b");
        (void)!::write(ready[1], "r", 1);
        for (;;) ::pause();
    }
    ::close(ready[1]);
    char c;
    REQUIRE(::read(ready[0], &c, 1) == 1);
    ::close(ready[0]);
    CHECK(entries_containing("sig_") == 2);  // the two temporaries exist now
    ::kill(child, sig);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    return status;
}

}  // namespace

TEST_CASE("signal cleanup: SIGTERM, SIGINT and SIGHUP remove every temporary, then kill") {
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
        CAPTURE(sig);
        const int status = killed_while_writing(sig);
        // Died of the signal itself, as a shell reports with 128 + sig.
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == sig);
        CHECK(entries_containing("sig_") == 0);
    }
}

TEST_CASE("signal cleanup: registered paths are forgotten when unregistered") {
    const std::string path = attn::test::tmp_path("kept.txt");
    attn::test::write_file(path, "mine");
    const int slot = attn::io::register_temporary(path.c_str());
    CHECK(slot >= 0);
    attn::io::unregister_temporary(slot);
    attn::io::install_signal_cleanup();
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::raise(SIGTERM);
        ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(attn::test::read_file(path) == "mine");
}
