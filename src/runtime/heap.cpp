#include "runtime/heap.hpp"

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace attn::runtime {

namespace {
constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;  // x86-64's PMD page
std::atomic<std::size_t> huge_from{0};                         // 0: no advice

// A block of `bytes` from malloc, the whole huge pages inside it advised as such (the partial
// ones at its ends stay in 4 KiB pages, so no page is backed beyond the block, and a freed
// block serves the next one of its size as before); nullptr when malloc has none.
void* huge_block(std::size_t bytes) {
    void* p = std::malloc(bytes);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t first = (a + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t last = (a + bytes) & ~(kHugePage - 1);
    if (p && last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
    return p;
}
}  // namespace

void keep_freed_blocks(std::size_t largest) {
    const int bytes = static_cast<int>(std::min<std::size_t>(largest, std::size_t{32} << 20));
    // M_MMAP_THRESHOLD: blocks below it come from the heap; M_TRIM_THRESHOLD: free memory at
    // the heap's top beyond it goes back to the kernel. Setting either stops glibc's dynamic
    // adjustment of both.
    ::mallopt(M_MMAP_THRESHOLD, bytes);
    ::mallopt(M_TRIM_THRESHOLD, bytes);
}

void advise_huge_pages(std::size_t smallest) {
    huge_from.store(smallest, std::memory_order_relaxed);
}

}  // namespace attn::runtime

#if !defined(__SANITIZE_ADDRESS__)
// The replaceable operator new ([new.delete.single]): libstdc++'s, malloc and the new-handler
// loop, with large blocks on huge pages (huge_block). Its operator delete (free) and the array and
// nothrow forms, which call this one, stay as they are.
void* operator new(std::size_t bytes) {
    if (bytes == 0) bytes = 1;
    for (;;) {
        const std::size_t from = attn::runtime::huge_from.load(std::memory_order_relaxed);
        if (void* p =
                from > 0 && bytes >= from ? attn::runtime::huge_block(bytes) : std::malloc(bytes))
            return p;
        const std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}
#endif
