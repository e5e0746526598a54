#include "cli/attend_path.hpp"

#include <algorithm>

#include "cli/enum_option.hpp"
#include "cli/errors.hpp"

namespace attn::cli {

namespace {

const NameTable<AttentionPath> kPaths{{"auto", AttentionPath::automatic},
                                      {"direct", AttentionPath::direct},
                                      {"tiled", AttentionPath::tiled}};

}  // namespace

void add_attention_option(CLI::App& group, AttentionPath& path) {
    add_enum_option(group, "--attention", path, kPaths,
                    "direct: the n x n matrices held (the notebook's numbers); tiled: fused "
                    "kernel, no n x n matrix held; auto: tiled when n_q n_k > 4194304");
}

bool needs_direct(const AttendOptions& opt) {
    return opt.scheme == AttendScheme::rope || opt.bias || !opt.permute.empty();
}

bool use_tiled(const AttendOptions& opt, const std::vector<Sequence>& seqs) {
    if (opt.attention == AttentionPath::tiled && needs_direct(opt))
        throw UsageError(
            "--attention tiled: --scheme rope, --bias and --permute take the direct path only; "
            "use --attention auto or direct");
    if (opt.attention != AttentionPath::automatic) return opt.attention == AttentionPath::tiled;
    if (needs_direct(opt)) return false;
    return std::any_of(seqs.begin(), seqs.end(), [](const Sequence& s) {
        return std::uint64_t{s.n()} * s.n() > kTiledAbove;
    });
}

}  // namespace attn::cli
