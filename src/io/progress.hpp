// A one-line progress bar on standard error for long jobs: rows done / total, rate and time
// left, e.g. "attend  [#########.........]  37% 24,576/65,536 rows  3,912 rows/s  0:11 left".
// It appears only when standard error is a terminal and the job has run for about a second
// (ATTN_PROGRESS_DELAY=SECONDS changes that wait), is redrawn at most 10 times a second,
// and is erased ("\r" then the erase-line sequence ESC [ K) when the job ends.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace attn::io {

class Progress {
  public:
    /// A job of `total` rows named `label`. enabled = false (--quiet, or output going to the
    /// terminal) or a standard error that is not a terminal: nothing is ever printed.
    Progress(std::string label, std::uint64_t total, bool enabled = true);
    ~Progress();  // finish()
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    /// More rows to do (a job whose size is learnt as it goes).
    void add_total(std::uint64_t rows);
    /// `rows` more rows done; safe from several threads at once.
    void advance(std::uint64_t rows);
    /// Erases the bar if it was drawn; later calls print nothing.
    void finish();

    /// Whether anything can be printed (enabled and standard error a terminal).
    bool active() const { return active_; }

    /// The line drawn for `done` of `total` rows after `seconds` (no "\r", no escape): for
    /// tests. width: the bar's characters.
    static std::string line(const std::string& label, std::uint64_t done, std::uint64_t total,
                            double seconds, std::size_t width = 20);

  private:
    void draw(std::chrono::steady_clock::time_point now);

    std::string label_;
    std::atomic<std::uint64_t> total_;
    std::atomic<std::uint64_t> done_{0};
    bool active_ = false;
    bool drawn_ = false;
    bool finished_ = false;
    double delay_ = 1.0;  // seconds before the first drawing
    std::chrono::steady_clock::time_point start_, last_;
    std::mutex mutex_;  // drawing
};

}  // namespace attn::io
