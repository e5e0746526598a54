#include "runtime/memory_budget.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <limits>

namespace attn::runtime {

namespace {
std::atomic<std::uint64_t> g_limit{0};  // 0 = the default
}

BudgetExceeded::BudgetExceeded(std::string_view what, std::uint64_t needed_bytes,
                               std::uint64_t limit_bytes)
    : std::runtime_error(fmt::format("{}: needs {} of memory, above the limit of {}", what,
                                     human_bytes(needed_bytes), human_bytes(limit_bytes))),
      request(what),
      needed(needed_bytes),
      limit(limit_bytes) {}

SizeOverflow::SizeOverflow(std::string_view what)
    : std::overflow_error(fmt::format("{}: overflows 64 bits", what)), request(what) {}

std::uint64_t physical_memory() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

std::uint64_t memory_limit() {
    const std::uint64_t set = g_limit;
    return set > 0 ? set : physical_memory() / 2;
}

void set_memory_limit(std::uint64_t bytes) {
    g_limit = bytes;
}

void reserve(std::uint64_t bytes, std::string_view what) {
    const std::uint64_t limit = memory_limit();
    if (limit > 0 && bytes > limit) throw BudgetExceeded(what, bytes, limit);
}

std::uint64_t checked_product(std::initializer_list<std::uint64_t> factors, std::string_view what) {
    std::uint64_t p = 1;
    bool overflow = false;
    for (std::uint64_t f : factors) {
        if (f == 0) return 0;
        if (p > std::numeric_limits<std::uint64_t>::max() / f) overflow = true;
        p *= f;
    }
    if (overflow) throw SizeOverflow(what);
    return p;
}

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what) {
    std::uint64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) throw SizeOverflow(what);
    return out;
}

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what) {
    std::uint64_t out = 0;
    if (__builtin_add_overflow(a, b, &out)) throw SizeOverflow(what);
    return out;
}

std::string human_bytes(std::uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 6) v /= 1024, ++u;
    return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace attn::runtime
