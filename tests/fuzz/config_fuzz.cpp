// config.json parsing on any text: a ConfigError or a config whose tensor list and forward
// size can be computed (or overflow, refused), never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/model/config.hpp"
#include "attn/model/tensors.hpp"
#include "runtime/memory_budget.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::runtime::set_memory_limit(std::uint64_t{64} << 20);
    try {
        const auto config =
            attn::model::parse_config(std::string_view(reinterpret_cast<const char*>(data), size));
        (void)attn::model::forward_bytes(config, 16, 4);
        if (attn::model::model_tensors(config).empty()) __builtin_trap();
    } catch (const attn::model::ConfigError&) {
    } catch (const attn::runtime::SizeOverflow&) {
    }
    return 0;
}
