#include "runtime/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

namespace attn::runtime {

namespace {

[[noreturn]] void fail(int error, const std::filesystem::path& path, const char* what) {
    throw std::system_error(error, std::generic_category(), path.string() + ": " + what);
}

std::uint64_t page_size() {
    static const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGE_SIZE));
    return page;
}

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) : path_(path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(errno, path, "cannot open");
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int error = errno;
        ::close(fd);
        fail(error, path, "cannot stat");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        fail(EINVAL, path, "not a regular file");
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
    if (size_ > 0) {
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            const int error = errno;
            ::close(fd);
            fail(error, path, "cannot map");
        }
        data_ = static_cast<const std::byte*>(p);
    }
    ::close(fd);  // the mapping keeps the file
}

MappedFile::~MappedFile() {
    if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
        path_ = std::move(other.path_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

namespace {

/// [first, last) page-aligned offsets of the pages wholly inside the range, or inward to
/// the mapping's first page when the range starts at 0 (the mapping itself is aligned).
std::pair<std::uint64_t, std::uint64_t> inner_pages(std::uint64_t offset, std::uint64_t length,
                                                    std::uint64_t size) {
    if (offset >= size) return {0, 0};
    const std::uint64_t end = length > size - offset ? size : offset + length;
    const std::uint64_t page = page_size();
    const std::uint64_t first = (offset + page - 1) / page * page;
    // The last page may end past the file: the mapping covers it whole.
    const std::uint64_t last = end == size ? (end + page - 1) / page * page : end / page * page;
    return first < last ? std::pair{first, last} : std::pair{std::uint64_t{0}, std::uint64_t{0}};
}

}  // namespace

void MappedFile::release(std::uint64_t offset, std::uint64_t length) const {
    const auto [first, last] = inner_pages(offset, length, size_);
    if (first == last) return;
    ::madvise(const_cast<std::byte*>(data_) + first, last - first, MADV_DONTNEED);
}

}  // namespace attn::runtime
