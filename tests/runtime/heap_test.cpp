#include "runtime/heap.hpp"

#include <doctest/doctest.h>

#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace {
// Bytes glibc holds in blocks mapped on their own (mallinfo2's hblkhd).
std::size_t mapped_bytes() {
    return ::mallinfo2().hblkhd;
}
// Allocates `bytes`, touches them, and returns what mapped_bytes() grew by while it was held.
std::size_t mapped_while_held(std::size_t bytes) {
    const std::size_t before = mapped_bytes();
    char* p = static_cast<char*>(std::malloc(bytes));
    REQUIRE(p != nullptr);
    std::memset(p, 1, bytes);
    const std::size_t grew = mapped_bytes() - before;
    std::free(p);
    return grew;
}
constexpr std::size_t kMiB = std::size_t{1} << 20;

// AddressSanitizer's allocator replaces glibc's (mallopt does nothing there and freed blocks
// wait in quarantine): under it only that the calls are harmless is checked.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kGlibcHeap = false;
#else
constexpr bool kGlibcHeap = true;
#endif
}  // namespace

TEST_CASE("heap: a block below the limit comes from the heap, a larger one is mapped alone") {
    attn::runtime::keep_freed_blocks(16 * kMiB);
    const std::size_t small = mapped_while_held(12 * kMiB), large = mapped_while_held(20 * kMiB);
    if (!kGlibcHeap) return;
    CHECK(small == 0);
    CHECK(large >= 20 * kMiB);
}

TEST_CASE("heap: a freed block serves the next one of its size without a new mapping") {
    attn::runtime::keep_freed_blocks();
    void* first = std::malloc(9 * kMiB);
    REQUIRE(first != nullptr);
    std::memset(first, 1, 9 * kMiB);
    std::free(first);
    const std::size_t before = mapped_bytes();
    void* second = std::malloc(9 * kMiB);
    REQUIRE(second != nullptr);
    const bool same = second == first, unmapped = mapped_bytes() == before;
    std::free(second);
    if (!kGlibcHeap) return;
    CHECK(same);
    CHECK(unmapped);
}
