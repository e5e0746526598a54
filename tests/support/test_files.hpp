// Scratch files for tests: paths under ATTN_TEST_TMP, whole-file reads and writes.
#pragma once

#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn::test {

/// ATTN_TEST_TMP/<pid>: this process's scratch directory, created on first use. The process
/// id keeps test cases that ctest runs in parallel out of each other's files.
inline std::string scratch_dir() {
    const std::string dir = std::string(ATTN_TEST_TMP) + "/" + std::to_string(::getpid());
    ::mkdir(dir.c_str(), 0777);
    return dir;
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
