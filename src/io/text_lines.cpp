#include "io/text_lines.hpp"

#include <cerrno>
#include <istream>
#include <system_error>

namespace attn::io {

std::vector<std::string> read_lines(std::istream& in, const std::string& name) {
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    if (in.bad()) throw std::system_error(errno, std::generic_category(), name);
    return lines;
}

}  // namespace attn::io
