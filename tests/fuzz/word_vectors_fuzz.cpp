// The word-vectors text reader (word2vec / GloVe text) on any bytes: vectors, or
// std::invalid_argument / a budget refusal, never a crash.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "io/embeddings_text.hpp"
#include "runtime/memory_budget.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::runtime::set_memory_limit(std::uint64_t{64} << 20);
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        std::istringstream in(text);
        (void)attn::io::read_word_vectors(in, "fuzz.txt");
    } catch (const std::invalid_argument&) {
    } catch (const std::overflow_error&) {
    } catch (const attn::runtime::BudgetExceeded&) {
    }
    try {
        std::istringstream in(text);
        (void)attn::io::read_word_list(in, "fuzz.txt");
    } catch (const std::invalid_argument&) {
    } catch (const attn::runtime::BudgetExceeded&) {
    }
    return 0;
}
