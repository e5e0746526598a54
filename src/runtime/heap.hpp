// How the process's heap treats large blocks. glibc serves a block above its mmap threshold
// (128 KiB, raised up to 32 MiB as such blocks are freed) with a fresh mapping and unmaps it
// on free, so every (n, d) activation a model's forward allocates anew is zero-filled again
// by the kernel, one page fault per 4 KiB page: at 1,024 tokens 25,000 faults and 4% of the
// forward's time. Kept in the heap, a freed block serves the next one of its size.
// A block's first touch still faults page by page: attend over (n, d) = (16,384, 128) float32
// rows takes 21,600 faults, 5-10% of its wall time on 2 threads, most of it serial (reading and
// copying the rows before the kernel, writing after it). With the whole 2 MiB pages inside
// each large block advised as transparent huge pages (madvise MADV_HUGEPAGE) it takes 5,200,
// and the peak resident memory is unchanged: the partial pages at a block's ends stay small.
#pragma once

#include <cstddef>

namespace attn::runtime {

/// Blocks up to `largest` bytes (at most glibc's limit, 32 MiB) come from the heap, and up to
/// that much freed at its top stays mapped for the next allocation; larger blocks are still
/// mapped and unmapped alone, so a one-off n x n array is handed back. Call once, before
/// computing.
void keep_freed_blocks(std::size_t largest = std::size_t{32} << 20);

/// From now on, every block of at least `smallest` bytes that operator new hands out has the
/// 2 MiB-aligned pages inside it advised as transparent huge pages (where the kernel has them,
/// as with /sys/kernel/mm/transparent_hugepage/enabled = madvise, Debian's default; a no-op
/// where it has not). 0 stops it. Under AddressSanitizer, whose allocator replaces glibc's,
/// operator new is not replaced and this does nothing.
void advise_huge_pages(std::size_t smallest = std::size_t{4} << 20);

}  // namespace attn::runtime
