// The .npy reader on any bytes: an array, or std::invalid_argument / a budget refusal, never
// a crash or an allocation beyond the budget.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "io/npy.hpp"
#include "runtime/memory_budget.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::runtime::set_memory_limit(std::uint64_t{64} << 20);
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        const auto array = attn::io::read_npy(in, "fuzz.npy");
        std::size_t count = 1;
        for (const auto s : array.shape) count *= s;
        if (count != array.values.size()) __builtin_trap();
    } catch (const std::invalid_argument&) {
    } catch (const std::overflow_error&) {
    } catch (const attn::runtime::BudgetExceeded&) {
    }
    return 0;
}
