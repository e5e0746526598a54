// How the process's heap treats large blocks. glibc serves a block above its mmap threshold
// (128 KiB, raised up to 32 MiB as such blocks are freed) with a fresh mapping and unmaps it
// on free, so every (n, d) activation a model's forward allocates anew is zero-filled again
// by the kernel, one page fault per 4 KiB page: at 1,024 tokens 25,000 faults and 4% of the
// forward's time. Kept in the heap, a freed block serves the next one of its size.
#pragma once

#include <cstddef>

namespace attn::runtime {

/// Blocks up to `largest` bytes (at most glibc's limit, 32 MiB) come from the heap, and up to
/// that much freed at its top stays mapped for the next allocation; larger blocks are still
/// mapped and unmapped alone, so a one-off n x n array is handed back. Call once, before
/// computing.
void keep_freed_blocks(std::size_t largest = std::size_t{32} << 20);

}  // namespace attn::runtime
