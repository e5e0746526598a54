#include "cli/attend_path.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "attn/attention/memory_plan.hpp"
#include "cli/common_options.hpp"
#include "cli/enum_option.hpp"
#include "runtime/memory_budget.hpp"

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

bool use_tiled(const AttendOptions& opt, const std::vector<Sequence>& seqs) {
    if (opt.attention != AttentionPath::automatic) return opt.attention == AttentionPath::tiled;
    return std::any_of(seqs.begin(), seqs.end(), [](const Sequence& s) {
        return std::uint64_t{s.n()} * s.n() > kTiledAbove;
    });
}

template <class T>
io::DriveOptions plan_attention(const AttendOptions& opt, const std::vector<Sequence>& seqs,
                                const Dims& dims, const std::vector<Show>& show, bool tiled) {
    const auto shown = [&](Show s) { return std::find(show.begin(), show.end(), s) != show.end(); };
    io::DriveOptions drive;
    std::size_t widest = 1;
    for (const auto& s : seqs) widest = std::max(widest, s.n());
    if (tiled) {
        drive.block_rows = std::clamp<std::size_t>((std::size_t{1} << 22) / widest, 1, 256);
        drive.compute_ahead = thread_count(opt.out) > 1;
    }
    LayerOptions o;
    o.path = tiled ? attn::AttentionPath::tiled : attn::AttentionPath::direct;
    o.keep_masked = shown(Show::masked_scores);
    std::uint64_t bytes = 0;
    for (const auto& s : seqs) {
        LayerShape shape;
        shape.n = s.n(), shape.d_in = dims.d_in, shape.heads = dims.heads;
        shape.kv_heads = dims.heads, shape.d_k = dims.dq, shape.d_v = dims.dv;
        shape.d_out = dims.d_out, shape.output = dims.out_proj, shape.scheme = opt.scheme;
        shape.permuted = !opt.permute.empty();
        const std::uint64_t one = memory_plan(shape, o, sizeof(T)).total();
        // every batch element's layer is held; with --permute one more, unpermuted, at a time
        const std::uint64_t b = std::max<std::size_t>(s.batch, 1) + (shape.permuted ? 1 : 0);
        bytes = runtime::checked_add(bytes, runtime::checked_mul(b, one, "the attention"),
                                     "the attention");
    }
    // the streamed rows: in T, the doubles handed to the writer, and the block made ahead
    bytes = runtime::checked_add(
        bytes,
        runtime::checked_product({drive.block_rows, widest, sizeof(T) + 2 * sizeof(double)},
                                 "the streamed rows"),
        "the attention");
    const Sequence& first = seqs.front();
    const std::string batch = first.batch ? fmt::format("{} x ", first.batch) : "";
    runtime::reserve(
        bytes, tiled                ? fmt::format("{}tiled attention over {}{} rows",
                                   opt.input.empty() ? "" : "--input: ", batch, first.n())
               : !opt.input.empty() ? fmt::format("--input: {}{} x {} x {} attention scores", batch,
                                                  dims.heads, first.n(), first.n())
                                    : "the attention scores");
    return drive;
}

template io::DriveOptions plan_attention<float>(const AttendOptions&, const std::vector<Sequence>&,
                                                const Dims&, const std::vector<Show>&, bool);
template io::DriveOptions plan_attention<double>(const AttendOptions&, const std::vector<Sequence>&,
                                                 const Dims&, const std::vector<Show>&, bool);

}  // namespace attn::cli
