#include "io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace attn::io {

namespace {

constexpr std::size_t kBufferSize = std::size_t{1} << 20;

[[noreturn]] void throw_errno(const std::string& what) {
    throw std::system_error(errno, std::generic_category(), what);
}

void write_fully(int fd, const char* data, std::size_t size, const std::string& name) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_errno(name);
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

}  // namespace

bool is_terminal(int fd) {
    return ::isatty(fd) == 1;
}

OutputFile::OutputFile(const std::string& path) {
    buffer_.reserve(kBufferSize);
    if (path.empty() || path == "-") {
        fd_ = STDOUT_FILENO;
        return;
    }
    path_ = path;
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base.empty()) throw std::system_error(EISDIR, std::generic_category(), path);
    std::string templ = (slash == std::string::npos ? std::string{} : dir) + "." + base + ".XXXXXX";
    fd_ = ::mkstemp(templ.data());
    if (fd_ < 0) throw_errno(path);
    temp_path_ = templ;
    // mkstemp creates 0600; a finished output gets the usual 0666 & ~umask.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, 0666 & ~mask);
}

OutputFile::~OutputFile() {
    if (!is_stdout() && !committed_) {
        if (fd_ >= 0) ::close(fd_);
        ::unlink(temp_path_.c_str());
    }
}

void OutputFile::flush_buffer() {
    if (buffer_.empty()) return;
    write_fully(fd_, buffer_.data(), buffer_.size(), is_stdout() ? "standard output" : path_);
    written_ += buffer_.size();
    buffer_.clear();
}

void OutputFile::write(const void* data, std::size_t size) {
    const char* bytes = static_cast<const char*>(data);
    if (buffer_.size() + size > kBufferSize) {
        flush_buffer();
        if (size >= kBufferSize) {
            write_fully(fd_, bytes, size, is_stdout() ? "standard output" : path_);
            written_ += size;
            return;
        }
    }
    buffer_.insert(buffer_.end(), bytes, bytes + size);
}

void OutputFile::commit() {
    flush_buffer();
    if (is_stdout()) return;
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw_errno(path_);
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0) throw_errno(path_);
    committed_ = true;
}

}  // namespace attn::io
