#include "io/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace attn::io {

namespace {

constexpr double kRedraw = 0.1;  // seconds between drawings, at least

// 1234567 -> "1,234,567".
std::string grouped(std::uint64_t v) {
    std::string digits = std::to_string(v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string clock(double seconds) {
    const auto s = static_cast<std::uint64_t>(std::max(0.0, seconds) + 0.5);
    return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                     : fmt::format("{}:{:02}", s / 60, s % 60);
}

void write_stderr(const std::string& text) {
    for (std::size_t off = 0; off < text.size();) {
        const ssize_t w = ::write(STDERR_FILENO, text.data() + off, text.size() - off);
        if (w <= 0) return;  // a progress bar is not worth an error
        off += static_cast<std::size_t>(w);
    }
}

}  // namespace

Progress::Progress(std::string label, std::uint64_t total, bool enabled)
    : label_(std::move(label)), total_(total) {
    active_ = enabled && ::isatty(STDERR_FILENO) == 1;
    if (const char* d = std::getenv("ATTN_PROGRESS_DELAY")) {
        char* end = nullptr;
        const double v = std::strtod(d, &end);
        if (end != d && v >= 0) delay_ = v;
    }
    start_ = last_ = std::chrono::steady_clock::now();
}

Progress::~Progress() {
    finish();
}

void Progress::add_total(std::uint64_t rows) {
    total_ += rows;
}

void Progress::advance(std::uint64_t rows) {
    done_ += rows;
    if (!active_) return;
    const auto now = std::chrono::steady_clock::now();
    const std::unique_lock lock(mutex_, std::try_to_lock);  // another thread is drawing
    if (!lock.owns_lock() || finished_) return;
    const double since_start = std::chrono::duration<double>(now - start_).count();
    const double since_last = std::chrono::duration<double>(now - last_).count();
    if (since_start < delay_ || (drawn_ && since_last < kRedraw)) return;
    draw(now);
}

void Progress::draw(std::chrono::steady_clock::time_point now) {
    const double seconds = std::chrono::duration<double>(now - start_).count();
    write_stderr(fmt::format("\r{}\x1b[K", line(label_, done_.load(), total_.load(), seconds)));
    drawn_ = true;
    last_ = now;
}

void Progress::finish() {
    if (!active_) return;
    const std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (drawn_) write_stderr("\r\x1b[K");
}

std::string Progress::line(const std::string& label, std::uint64_t done, std::uint64_t total,
                           double seconds, std::size_t width) {
    done = std::min(done, total);
    const double f = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
    const auto filled = static_cast<std::size_t>(f * static_cast<double>(width));
    std::string text =
        fmt::format("{}  [{}{}] {:3.0f}% {}/{} rows", label, std::string(filled, '#'),
                    std::string(width - filled, '.'), 100 * f, grouped(done), grouped(total));
    if (done > 0 && seconds > 0) {
        const double rate = static_cast<double>(done) / seconds;
        text += fmt::format("  {} rows/s  {} left", grouped(static_cast<std::uint64_t>(rate)),
                            clock(static_cast<double>(total - done) / rate));
    }
    return text;
}

}  // namespace attn::io
