// The lines of a text input (attend's sentences on standard input, one per line).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace attn::io {

/// Every line of `in` in order, each without its \n and a \r before it; empty lines kept, a
/// last line without \n included. A read error: std::system_error naming `name`.
std::vector<std::string> read_lines(std::istream& in, const std::string& name);

}  // namespace attn::io
