// The GGUF tokenizer reader on any bytes: a file whose header reads is turned into the
// tokenizer.json text of its tokenizer.ggml.* keys (byte-level BPE or SentencePiece), or a
// GgufError naming the key, never a crash, nothing allocated beyond the memory budget. The
// bytes are written to a memfd and opened by path, as attn opens a file.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/gguf.hpp"
#include "io/gguf_tokenizer.hpp"
#include "runtime/memory_budget.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const int fd = memfd_create("fuzz.gguf", 0);
    static const std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (fd < 0 || ftruncate(fd, 0) != 0) __builtin_trap();
    if (size > 0 && pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) __builtin_trap();
    attn::runtime::set_memory_limit(std::uint64_t{64} << 20);
    try {
        const attn::io::GgufFile file(path);
        if (!attn::io::has_gguf_tokenizer(file)) return 0;
        const std::string json = attn::io::gguf_tokenizer_json(file);
        if (json.empty()) __builtin_trap();
    } catch (const attn::io::GgufError&) {
    } catch (const attn::runtime::BudgetExceeded&) {
    }
    return 0;
}
