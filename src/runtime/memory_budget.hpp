// The process's memory budget: one limit (default half the physical memory) that every large
// allocation and every input size is checked against before anything is allocated, so a
// request too large for the machine is refused with a message instead of swapping or being
// killed. Sizes are products of shapes: checked_product refuses those that overflow 64 bits.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn::runtime {

/// A request above the limit. what(): "<what>: needs 1.5 GiB of memory, above the limit of
/// 1.0 GiB".
struct BudgetExceeded : std::runtime_error {
    BudgetExceeded(std::string_view what, std::uint64_t needed, std::uint64_t limit);
    std::string request;  // what asked, e.g. "the attention scores"
    std::uint64_t needed;
    std::uint64_t limit;
};

/// A size or count that does not fit in 64 bits. what(): "<what>: overflows 64 bits".
struct SizeOverflow : std::overflow_error {
    explicit SizeOverflow(std::string_view what);
    std::string request;
};

/// Bytes of physical memory (sysconf), 0 when unknown.
std::uint64_t physical_memory();

/// The limit requests are checked against: set_memory_limit's value, else half the physical
/// memory (0 when that is unknown: nothing is refused).
std::uint64_t memory_limit();
/// Sets the limit for the whole process (bytes >= 1); 0 restores the default.
void set_memory_limit(std::uint64_t bytes);

/// Asks whether one request of `bytes` fits: throws BudgetExceeded naming `what`, the size
/// and the limit when bytes > memory_limit(). Nothing is held: each request is checked on its
/// own, as the peak of one step.
void reserve(std::uint64_t bytes, std::string_view what);

/// f1 * f2 * ... in 64 bits; SizeOverflow naming `what` when the product overflows (a factor 0
/// gives 0 whatever the others).
std::uint64_t checked_product(std::initializer_list<std::uint64_t> factors, std::string_view what);
/// a * b and a + b, or SizeOverflow naming `what`.
std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what);
std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what);

/// Bytes for people: "512 B", "1.5 KiB", "2.0 GiB" (powers of 1024, one decimal).
std::string human_bytes(std::uint64_t bytes);

}  // namespace attn::runtime
