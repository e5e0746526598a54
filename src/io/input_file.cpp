#include "io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <system_error>

namespace attn::io {

TerminalInput::TerminalInput()
    : std::invalid_argument(
          "binary data not read from a terminal; redirect a file or pipe to standard input") {}

InputFile::InputFile(const std::string& path, bool binary) {
    struct stat st {};
    if (path == "-") {
        standard_ = true;
        name_ = "standard input";
        if (::fcntl(STDIN_FILENO, F_GETFD) == -1 && errno == EBADF)
            throw std::system_error(EBADF, std::generic_category(), "standard input is closed");
        if (binary && ::isatty(STDIN_FILENO)) throw TerminalInput();
        if (::fstat(STDIN_FILENO, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                throw std::system_error(EISDIR, std::generic_category(), name_);
            if (S_ISREG(st.st_mode)) {
                const off_t here = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
                if (here >= 0 && here <= st.st_size)
                    size_ = static_cast<std::uint64_t>(st.st_size - here);
            }
        }
        return;
    }
    name_ = path;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw std::system_error(EISDIR, std::generic_category(), path);
    file_.open(path, std::ios::binary);
    if (!file_) throw std::system_error(errno, std::generic_category(), path);
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        size_ = static_cast<std::uint64_t>(st.st_size);
}

std::istream& InputFile::stream() {
    return standard_ ? std::cin : file_;
}

}  // namespace attn::io
