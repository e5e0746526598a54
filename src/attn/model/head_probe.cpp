#include "attn/model/head_probe.hpp"

#include <algorithm>
#include <stdexcept>

#include "attn/torch_random.hpp"

namespace attn::model {

std::vector<std::int64_t> probe_ids(std::int64_t first, std::int64_t last,
                                    std::span<const std::int64_t> excluded) {
    std::vector<std::int64_t> out;
    for (std::int64_t id = first; id < last; ++id)
        if (std::find(excluded.begin(), excluded.end(), id) == excluded.end()) out.push_back(id);
    return out;
}

std::vector<std::vector<std::int64_t>> repeat_probe(std::span<const std::int64_t> allowed,
                                                    std::optional<std::int64_t> bos,
                                                    std::size_t count, std::size_t length,
                                                    std::uint64_t seed) {
    if (allowed.empty()) throw std::invalid_argument("repeat probe: no id to draw from");
    TorchGenerator gen(seed);
    const std::vector<std::int64_t> idx = torch_randint(gen, allowed.size(), count * length);
    std::vector<std::vector<std::int64_t>> prompts(count);
    for (std::size_t b = 0; b < count; ++b) {
        std::vector<std::int64_t>& p = prompts[b];
        if (bos) p.push_back(*bos);
        for (std::size_t copy = 0; copy < 2; ++copy)
            for (std::size_t k = 0; k < length; ++k)
                p.push_back(allowed[static_cast<std::size_t>(idx[b * length + k])]);
    }
    return prompts;
}

}  // namespace attn::model
