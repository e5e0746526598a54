// Where bytes go: standard output, or a file that is written whole or not at all
// (a temporary file in the same directory, renamed over the target on commit()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn::io {

class OutputFile {
  public:
    /// path "-" (or "") is standard output. Otherwise creates "<dir>/.<name>.XXXXXX" now;
    /// throws std::system_error naming the path when it cannot.
    explicit OutputFile(const std::string& path);
    ~OutputFile();  // without commit(): the temporary file is removed, the target untouched
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    /// Buffered; throws std::system_error (EPIPE included) with errno on failure.
    void write(const void* data, std::size_t size);
    void write(std::string_view text) { write(text.data(), text.size()); }
    /// Flush; for a file also close it and rename it onto the target path (atomic; no fsync).
    void commit();

    bool is_stdout() const { return path_.empty(); }
    const std::string& path() const { return path_; }  // "" for standard output
    std::uint64_t bytes_written() const { return written_ + buffer_.size(); }

  private:
    void flush_buffer();

    std::string path_;       // target; "" = stdout
    std::string temp_path_;  // the file being written, renamed to path_ on commit
    int fd_ = -1;
    bool committed_ = false;
    std::uint64_t written_ = 0;
    std::vector<char> buffer_;
};

/// Whether file descriptor fd is a terminal (isatty).
bool is_terminal(int fd);

}  // namespace attn::io
