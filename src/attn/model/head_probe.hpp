// The repeat probe of `attn heads`: prompts [BOS] r_1 .. r_N r_1 .. r_N whose second half an
// induction head can predict from the first, r drawn as PyTorch draws it:
//   idx = torch.randint(m, (count, N), generator=torch.Generator().manual_seed(seed))
//   r_k = allowed[idx[b, k - 1]]        (allowed: the sorted ids that may be drawn, m of them)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace attn::model {

/// The ids first .. last - 1 without `excluded` (special and added tokens), increasing.
std::vector<std::int64_t> probe_ids(std::int64_t first, std::int64_t last,
                                    std::span<const std::int64_t> excluded);

/// `count` prompts of 2 length (+ 1 with bos) ids, as above. allowed must not be empty
/// (std::invalid_argument otherwise).
std::vector<std::vector<std::int64_t>> repeat_probe(std::span<const std::int64_t> allowed,
                                                    std::optional<std::int64_t> bos,
                                                    std::size_t count, std::size_t length,
                                                    std::uint64_t seed);

}  // namespace attn::model
