// Opening what a reader reads: a file by name, or standard input for "-". Every reader opens
// through here, so each refuses the same things with the same words: a directory ("Is a
// directory"), a file that cannot be opened (the system's reason, once), a closed standard
// input, and binary data from a terminal (refused as gzip refuses it, instead of waiting).
#pragma once

#include <cstdint>
#include <fstream>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>

namespace attn::io {

/// Binary input asked of a terminal: what() says so without naming an option (the caller
/// does).
struct TerminalInput : std::invalid_argument {
    TerminalInput();
};

/// An opened input: `stream()` is the file or std::cin, `name()` is the path or
/// "standard input", `size()` the bytes of a regular file (nullopt for pipes and terminals).
class InputFile {
  public:
    /// std::system_error naming the path (EISDIR for a directory, EBADF "standard input is
    /// closed" for a closed descriptor 0); TerminalInput when `binary` and "-" is a terminal.
    InputFile(const std::string& path, bool binary);

    std::istream& stream();
    const std::string& name() const { return name_; }
    std::optional<std::uint64_t> size() const { return size_; }

  private:
    std::ifstream file_;
    bool standard_ = false;
    std::string name_;
    std::optional<std::uint64_t> size_;
};

}  // namespace attn::io
