// Scratch files for writer tests: a fresh path under the test build's tmp directory, and
// the whole content of a file.
#pragma once

#include <unistd.h>
#include <fstream>
#include <sstream>
#include <string>

namespace attn::test {

inline std::string scratch_path(const std::string& name) {
    return std::string(ATTN_TEST_TMP) + "/" + std::to_string(::getpid()) + "_" + name;
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline bool file_exists(const std::string& path) {
    return ::access(path.c_str(), F_OK) == 0;
}

}  // namespace attn::test
