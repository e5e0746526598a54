#include "io/output_file.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "io/signal_cleanup.hpp"

namespace attn::io {

namespace {

constexpr std::size_t kBufferSize = std::size_t{1} << 20;
constexpr int kMaxLinks = 40;  // as the kernel's ELOOP limit

[[noreturn]] void throw_errno(const std::string& what, int err = errno) {
    throw std::system_error(err, std::generic_category(), what);
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

std::string directory_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string{} : path.substr(0, slash + 1);
}

// path with every symbolic link of its last component followed; the result may not exist.
// through_proc: a link on the way is one of /proc's (/dev/stdout -> /proc/self/fd/1), whose
// text may be no path at all ("pipe:[123]"): the caller opens path itself instead.
std::string follow_links(const std::string& path, bool& through_proc) {
    std::string p = path;
    through_proc = false;
    for (int hops = 0;; ++hops) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
        if (p.starts_with("/proc/") || p.starts_with("/dev/fd/")) through_proc = true;
        if (hops == kMaxLinks) throw_errno(path, ELOOP);
        std::string link(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
        const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
        if (n < 0) throw_errno(path);
        link.resize(static_cast<std::size_t>(n));
        p = link.starts_with('/') ? link : directory_of(p) + link;
    }
}

// A Unix-domain stream socket at path, connected; -1 with errno set.
int connect_socket(const std::string& path) {
    sockaddr_un addr{};
    if (path.size() >= sizeof(addr.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
        const int err = errno;
        ::close(fd);
        errno = err;
        return -1;
    }
    return fd;
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
    if (path.back() == '/') throw_errno(path, EISDIR);
    bool through_proc = false;
    target_ = follow_links(path, through_proc);

    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) throw_errno(path, EISDIR);
    if (exists && (!S_ISREG(st.st_mode) || through_proc)) {
        // Device, FIFO or socket, or an open file named through /proc (/dev/stdout): written
        // in place (a FIFO's open waits for its reader); a regular file is truncated first.
        if (S_ISSOCK(st.st_mode))
            fd_ = connect_socket(target_);
        else
            fd_ = ::open(path.c_str(),
                         O_WRONLY | O_NOCTTY | O_CLOEXEC | (S_ISREG(st.st_mode) ? O_TRUNC : 0));
        if (fd_ < 0) throw_errno(path);
        return;
    }

    const auto slash = target_.rfind('/');
    const std::string base = slash == std::string::npos ? target_ : target_.substr(slash + 1);
    std::string templ = directory_of(target_) + "." + base + ".XXXXXX";
    install_signal_cleanup();
    {
        const BlockCleanupSignals blocked;  // the file exists only once it is registered
        fd_ = ::mkostemp(templ.data(), O_CLOEXEC);
        if (fd_ < 0) throw_errno(path);
        slot_ = register_temporary(templ.c_str());
    }
    temp_path_ = templ;
    // mkstemp creates 0600: a replaced file keeps its permission bits, a new one gets
    // 0666 & ~umask as open(2) would give it.
    mode_t mode;
    if (exists) {
        // Owner and group too where permitted (root; or a group this user is in). Before
        // fchmod: chown clears the set-user-ID bit.
        if (::fchown(fd_, st.st_uid, st.st_gid) != 0) {
            // not permitted: the new file belongs to this user, as any file it creates
        }
        mode = st.st_mode & 07777;
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    if (::fchmod(fd_, mode) != 0) {
        const int err = errno;
        ::close(fd_);
        fd_ = -1;
        ::unlink(temp_path_.c_str());
        unregister_temporary(slot_);
        throw_errno(path, err);
    }
}

OutputFile::~OutputFile() {
    if (is_stdout()) return;
    if (fd_ >= 0) ::close(fd_);
    if (!temp_path_.empty() && !committed_) {
        ::unlink(temp_path_.c_str());
        unregister_temporary(slot_);
    }
}

void OutputFile::flush_buffer() {
    if (buffer_.empty()) return;
    write_fully(fd_, buffer_.data(), buffer_.size(), is_stdout() ? "standard output" : path_);
    written_ += buffer_.size();
    buffer_.clear();
}

void OutputFile::write(const void* data, std::size_t size) {
    if (closed_) throw std::logic_error("OutputFile::write after close()");
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

void OutputFile::close() {
    if (closed_) return;
    flush_buffer();
    if (is_stdout()) return;  // standard output stays open
    closed_ = true;
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw_errno(path_);
}

void OutputFile::publish() {
    if (is_stdout() || committed_) return;
    if (!closed_) throw std::logic_error("OutputFile::publish before close()");
    if (!temp_path_.empty()) {
        const BlockCleanupSignals blocked;
        if (::rename(temp_path_.c_str(), target_.c_str()) != 0) throw_errno(path_);
        unregister_temporary(slot_);
    }
    committed_ = true;
}

void OutputFile::commit() {
    close();
    publish();
}

}  // namespace attn::io
