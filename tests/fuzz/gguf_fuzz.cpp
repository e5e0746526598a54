// The GGUF reader on any bytes: a GgufError or a header whose every tensor lies inside the
// bytes, never a crash, nothing allocated beyond the memory budget (64 MiB here; run.sh caps
// malloc too). Each accepted tensor of a widened type is then widened (its first and last
// elements, through runtime::TensorView), so fuzzed blocks reach the dequantization too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "io/gguf.hpp"
#include "runtime/memory_budget.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::runtime::set_memory_limit(std::uint64_t{64} << 20);
    const auto bytes = std::as_bytes(std::span(data, size));
    try {
        const auto header = attn::io::read_gguf_header(bytes, "fuzz.gguf");
        if (header.data_offset > size || header.alignment == 0) __builtin_trap();
        for (const auto& t : header.tensors) {
            if (t.begin < header.data_offset || t.begin > size || t.bytes > size - t.begin)
                __builtin_trap();
            const auto type = attn::io::ggml_type(t.type);
            if (!type) __builtin_trap();
            if (!type->dtype) continue;
            const attn::runtime::TensorView view{*type->dtype, t.shape(),
                                                 bytes.subspan(t.begin, t.bytes)};
            const std::uint64_t n = view.numel();
            std::vector<float> out(static_cast<std::size_t>(std::min<std::uint64_t>(n, 300)));
            view.to_float(out);
            view.to_float(std::span(out).first(std::min<std::size_t>(out.size(), 3)),
                          n - std::min<std::uint64_t>(n, 3));
        }
        // Every getter on every key: a value or a GgufError, nothing else.
        for (const auto& [key, value] : header.metadata.entries()) {
            try {
                (void)header.metadata.string(key);
            } catch (const attn::io::GgufError&) {
            }
            try {
                (void)header.metadata.numbers(key);
            } catch (const attn::io::GgufError&) {
            }
            try {
                (void)header.metadata.integer(key);
            } catch (const attn::io::GgufError&) {
            }
        }
    } catch (const attn::io::GgufError&) {
    } catch (const attn::runtime::BudgetExceeded&) {
    }
    return 0;
}
