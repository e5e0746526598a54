// The safetensors header reader on any bytes: a CheckpointError or a header, never a crash,
// and nothing allocated beyond the memory budget (64 MiB here; run.sh caps malloc too).
#include <cstddef>
#include <cstdint>
#include <span>

#include "io/safetensors.hpp"
#include "runtime/memory_budget.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::runtime::set_memory_limit(std::uint64_t{64} << 20);
    try {
        const auto header = attn::io::read_safetensors_header(std::as_bytes(std::span(data, size)),
                                                              "fuzz.safetensors");
        // Every range the reader accepted lies inside the bytes.
        for (const auto& t : header.tensors)
            if (t.begin < header.data_start || t.end > size || t.begin > t.end) __builtin_trap();
    } catch (const attn::io::CheckpointError&) {
    } catch (const attn::runtime::BudgetExceeded&) {
    }
    return 0;
}
