// Scratch files for tests: a private directory under $TMPDIR (default /tmp) that is removed
// with everything in it when the test process ends; whole-file reads and writes.
#pragma once

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace attn::test {

/// A directory made by mkdtemp in $TMPDIR, removed (recursively) by the destructor.
class ScratchDir {
  public:
    ScratchDir() {
        const char* tmp = std::getenv("TMPDIR");
        std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/attn-test.XXXXXX";
        if (::mkdtemp(templ.data()) == nullptr)
            throw std::system_error(errno, std::generic_category(), templ);
        path_ = templ;
    }
    ~ScratchDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

/// This process's scratch directory, made on first use and removed at exit (std::exit
/// included). ctest runs each test case in its own process, so parallel cases never share it.
inline std::string scratch_dir() {
    static const ScratchDir dir;
    return dir.path();
}

/// scratch_dir()/<name>.
inline std::string tmp_path(std::string_view name) {
    return scratch_dir() + "/" + std::string(name);
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline bool file_exists(const std::string& path) {
    return ::access(path.c_str(), F_OK) == 0;
}

inline void write_file(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace attn::test
