// A file mapped read-only into memory: checkpoints are read where they lie, the kernel pages
// them in on first touch, and a range whose use is over (a layer's weights) is handed back
// with release(), so resident memory stays about one layer whatever the file's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>

namespace attn::runtime {

class MappedFile {
  public:
    /// Maps the whole file (symlinks followed). std::system_error naming the path when it
    /// cannot be opened, is not a regular file, or cannot be mapped. An empty file maps to
    /// an empty span.
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::uint64_t size() const { return size_; }
    /// The file's bytes, valid while this object lives.
    std::span<const std::byte> bytes() const { return {data_, size_}; }

    /// Drops the pages wholly inside [offset, offset + length) from resident memory
    /// (madvise MADV_DONTNEED: a later read pages them in again from the file). Ranges past
    /// the end are clipped; partial pages at either end are kept.
    void release(std::uint64_t offset, std::uint64_t length) const;

  private:
    std::filesystem::path path_;
    const std::byte* data_ = nullptr;
    std::uint64_t size_ = 0;
};

}  // namespace attn::runtime
