// Scratch files for tests: paths under ATTN_TEST_TMP, whole-file reads and writes.
#pragma once

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn::test {

/// ATTN_TEST_TMP/<name>; the directory exists (tests/CMakeLists.txt creates it).
inline std::string tmp_path(std::string_view name) {
    return std::string(ATTN_TEST_TMP) + "/" + std::string(name);
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace attn::test
