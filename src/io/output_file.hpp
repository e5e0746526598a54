// Where bytes go: standard output, or a file that is written whole or not at all.
//
// What -o PATH does, by what PATH is:
//   - missing or a regular file: a temporary "<dir>/.<name>.XXXXXX" beside it is written and
//     renamed over PATH on commit() (atomic; no fsync). A replaced file keeps its permission
//     bits (0600 stays 0600) and, where permitted, owner and group; a new one gets
//     0666 & ~umask.
//     Hard links: the rename gives PATH a new inode, so any other name linked to the old file
//     keeps the old content (as with sed -i, or an editor that saves by renaming).
//   - a symbolic link: followed (up to 40 links); its final target is replaced as above and
//     the link stays a link. A dangling link's target is created.
//   - a character or block device, FIFO or socket (/dev/null, a named pipe), or anything
//     named through /proc's links (/dev/stdout, /dev/fd/N: a pipe, a terminal, or a file,
//     which is truncated): opened and written in place, never replaced; what was written
//     before a failure stays written there.
//   - a directory: an error (EISDIR).
// Temporaries are registered with io/signal_cleanup.hpp: SIGINT, SIGTERM and SIGHUP remove
// them before the process dies.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn::io {

class OutputFile {
  public:
    /// path "-" (or "") is standard output. Otherwise opens the target or creates the
    /// temporary now; throws std::system_error naming the path when it cannot.
    explicit OutputFile(const std::string& path);
    ~OutputFile();  // without commit(): the temporary file is removed, the target untouched
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    /// Buffered; throws std::system_error (EPIPE included) with errno on failure.
    void write(const void* data, std::size_t size);
    void write(std::string_view text) { write(text.data(), text.size()); }
    /// Writes out what is buffered (for output a person waits for line by line).
    void flush() { flush_buffer(); }
    /// close() then publish(): the whole file appears at its path.
    void commit();
    /// Flushes and closes (errors of a full disk show here); nothing is renamed yet.
    void close();
    /// Renames the closed temporary onto the target (nothing to do when written in place).
    void publish();

    bool is_stdout() const { return path_.empty(); }
    /// Written in place (device, FIFO, socket): no temporary, no rename.
    bool in_place() const { return !is_stdout() && temp_path_.empty(); }
    const std::string& path() const { return path_; }  // "" for standard output
    std::uint64_t bytes_written() const { return written_ + buffer_.size(); }

  private:
    void flush_buffer();

    std::string path_;       // as given; "" = stdout
    std::string target_;     // path_ with symbolic links followed: what is replaced
    std::string temp_path_;  // the file being written, renamed to target_; "" = in place
    int fd_ = -1;
    int slot_ = -1;  // signal_cleanup registration of temp_path_
    bool closed_ = false;
    bool committed_ = false;
    std::uint64_t written_ = 0;
    std::vector<char> buffer_;
};

/// Whether file descriptor fd is a terminal (isatty).
bool is_terminal(int fd);

}  // namespace attn::io
