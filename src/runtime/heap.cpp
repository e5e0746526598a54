#include "runtime/heap.hpp"

#include <malloc.h>

#include <algorithm>

namespace attn::runtime {

void keep_freed_blocks(std::size_t largest) {
    const int bytes = static_cast<int>(std::min<std::size_t>(largest, std::size_t{32} << 20));
    // M_MMAP_THRESHOLD: blocks below it come from the heap; M_TRIM_THRESHOLD: free memory at
    // the heap's top beyond it goes back to the kernel. Setting either stops glibc's dynamic
    // adjustment of both.
    ::mallopt(M_MMAP_THRESHOLD, bytes);
    ::mallopt(M_TRIM_THRESHOLD, bytes);
}

}  // namespace attn::runtime
