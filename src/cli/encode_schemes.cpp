// attn encode --scheme rope|alibi|t5: the option checks (Hugging Face's key names become the
// option names), --show, --apply's X, and the run streaming the arrays of encode_arrays.cpp.
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <utility>

#include "attn/positions/parameter_error.hpp"
#include "cli/arguments.hpp"
#include "cli/encode_arrays.hpp"
#include "cli/errors.hpp"
#include "cli/exit_code.hpp"
#include "cli/position_options.hpp"
#include "cli/show_table.hpp"
#include "io/npy.hpp"
#include "io/output_spec.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::cli {

namespace {

using Table = SchemeTable;

// A library parameter (Hugging Face's key, "factor") as the option that sets it.
const std::vector<std::pair<std::string, std::string>> kKeyOptions{
    {"d", "--dim"}, {"n", "--positions"}, {"heads", "--heads"}};

template <class F>
auto naming_keys(F&& make) -> decltype(make()) {
    try {
        return make();
    } catch (const positions::ParameterError& e) {
        std::string option = "--" + e.parameter;
        for (const auto& table : {kKeyOptions, position_key_options()})
            for (const auto& [k, o] : table)
                if (e.parameter == k) option = o;
        throw UsageError(option + ": " + e.detail);
    }
}

// --apply X.npy: (n, d) or (b, n, d); n and d default to X's, and must match when given.
std::shared_ptr<const io::NpyArray> read_apply(const EncodeOptions& opt) {
    struct stat st {};
    if (!io::is_standard_stream(opt.apply) && ::stat(opt.apply.c_str(), &st) == 0 &&
        S_ISREG(st.st_mode)) {
        // X as doubles: at most twice the file's bytes (float32 -> float64).
        const auto bytes = static_cast<std::uint64_t>(st.st_size) * 2;
        runtime::reserve(bytes, "--apply " + opt.apply);
    }
    auto x = std::make_shared<io::NpyArray>();
    try {
        *x = naming_option("--apply", [&] { return io::read_npy(opt.apply); });
    } catch (const InputError& e) {
        throw UsageError(e.what());
    }
    const std::size_t rank = x->shape.size();
    if (rank != 2 && rank != 3)
        throw UsageError(
            fmt::format("--apply: {}: X has {} dimensions; it must be (n, d) or "
                        "(b, n, d)",
                        opt.apply, rank));
    const std::size_t n = x->shape[rank - 2], d = x->shape.back();
    if (opt.typed("--dim") && d != static_cast<std::size_t>(opt.dim))
        throw UsageError(
            fmt::format("--apply: {}: X has width {}, not d = {} (--dim)", opt.apply, d, opt.dim));
    if (opt.typed("--positions") && n != static_cast<std::size_t>(opt.positions))
        throw UsageError(fmt::format("--apply: {}: X has {} positions, not n = {} (--positions)",
                                     opt.apply, n, opt.positions));
    return x;
}

}  // namespace

bool EncodeOptions::typed(const std::string& name) const {
    return std::find(given.begin(), given.end(), name) != given.end();
}

std::string scheme_show_help() {
    std::string text = "Arrays (--show; all for npz, json, table or -o DIR/):\n";
    for (Scheme s : {Scheme::sinusoidal, Scheme::rope, Scheme::alibi, Scheme::t5})
        for (const auto& e : table_of(s))
            text += fmt::format("  {}: {} {}: {}\n", scheme_name(s), e.name, e.shape, e.help);
    return text;
}

void check_scheme_options(const EncodeOptions& opt) {
    struct Belongs {
        const char* option;
        std::vector<Scheme> schemes;
    };
    const std::vector<Scheme> sin_rope{Scheme::sinusoidal, Scheme::rope};
    const std::vector<Belongs> table{{"--add", {Scheme::sinusoidal}},
                                     {"--columns", {Scheme::sinusoidal}},
                                     {"--angles", sin_rope},
                                     {"--dim", sin_rope},
                                     {"--base", sin_rope},
                                     {"--start", sin_rope},
                                     {"--layout", sin_rope},
                                     {"--rope-scaling", {Scheme::rope}},
                                     {"--factor", {Scheme::rope}},
                                     {"--original-max-positions", {Scheme::rope}},
                                     {"--low-freq-factor", {Scheme::rope}},
                                     {"--high-freq-factor", {Scheme::rope}},
                                     {"--beta-fast", {Scheme::rope}},
                                     {"--beta-slow", {Scheme::rope}},
                                     {"--apply", {Scheme::rope}},
                                     {"--heads", {Scheme::alibi}},
                                     {"--buckets", {Scheme::t5}},
                                     {"--max-distance", {Scheme::t5}},
                                     {"--causal", {Scheme::t5}}};
    for (const Belongs& b : table) {
        if (!opt.typed(b.option) ||
            std::find(b.schemes.begin(), b.schemes.end(), opt.scheme) != b.schemes.end())
            continue;
        std::string names;
        for (Scheme s : b.schemes) names += std::string(names.empty() ? "" : "|") + scheme_name(s);
        throw UsageError(fmt::format("{}: belongs to --scheme {}, not to --scheme {}", b.option,
                                     names, scheme_name(opt.scheme)));
    }
    if (opt.scheme == Scheme::rope && !opt.typed("--rope-scaling"))
        for (const char* p : {"--factor", "--original-max-positions", "--low-freq-factor",
                              "--high-freq-factor", "--beta-fast", "--beta-slow"})
            if (opt.typed(p))
                throw UsageError(fmt::format(
                    "{}: a scaling parameter needs --rope-scaling linear|dynamic|yarn|llama3", p));
}

EncodeShow parse_encode_show(const EncodeOptions& opt) {
    // The scheme's arrays, then error: no array, but how the listed ones are printed.
    SchemeTable names = table_of(opt.scheme);
    std::string accepted;
    for (const auto& e : names) accepted += (accepted.empty() ? "" : ", ") + e.name;
    accepted += ", all, error";
    names.push_back(
        {EncodeArray::error, "error", "", "value minus exact value", nullptr, 0, false});
    const bool apply = !opt.apply.empty();
    const std::vector<ShowNeed> needs{{kNeedsApply, "needs --apply X.npy, the array to rotate"}};
    const auto unknown = [&](const std::string& name) {
        return fmt::format("--show: '{}' is not an array of --scheme {}; it has {}", name,
                           scheme_name(opt.scheme), accepted);
    };
    EncodeShow show;
    if (!opt.show.empty())
        for (EncodeArray item :
             parse_show_list(names, opt.show, apply ? kNeedsApply : 0, needs, unknown)) {
            if (item == EncodeArray::error)
                show.errors = true;
            else
                show.arrays.push_back(item);
        }
    if (show.arrays.empty()) show.arrays.push_back(default_array(opt.scheme, apply));
    return show;
}

int run_scheme(const EncodeOptions& opt) {
    const EncodeShow show = parse_encode_show(opt);
    SchemeRun run;
    run.opt = &opt;
    run.n = static_cast<std::size_t>(opt.positions);
    run.d = static_cast<std::size_t>(opt.dim);
    if (opt.scheme == Scheme::rope) {
        if (!opt.apply.empty()) {
            run.x = read_apply(opt);
            run.n = run.x->shape[run.x->shape.size() - 2];
            run.d = run.x->shape.back();
            if (run.x->shape.size() == 3) run.batch = run.x->shape[0];
        }
        pos::RopeParameters p;
        p.d = run.d;
        p.base = opt.base;
        p.scaling = opt.scaling;
        p.factor = opt.factor;
        p.original_max_position_embeddings = opt.original_max_positions;
        p.low_freq_factor = opt.low_freq_factor;
        p.high_freq_factor = opt.high_freq_factor;
        p.beta_fast = opt.beta_fast;
        p.beta_slow = opt.beta_slow;
        if (opt.model_rope) p = *opt.model_rope;
        p.d = run.d;
        run.rope = naming_keys([&] { return std::make_shared<pos::Rope>(p, opt.start, run.n); });
        run.layout = opt.typed("--layout") && opt.layout == positions::Layout::interleaved
                         ? pos::Layout::interleaved
                         : pos::Layout::split;
    } else if (opt.scheme == Scheme::alibi) {
        if (opt.heads < 1)
            throw UsageError(
                fmt::format("--heads: {} is not a number of heads (at least 1)", opt.heads));
        run.alibi = naming_keys([&] {
            return std::make_shared<pos::AlibiBias>(static_cast<std::size_t>(opt.heads), run.n);
        });
    } else {
        run.t5 = {opt.buckets, opt.max_distance, !opt.causal};
        naming_keys([&] { pos::validate(run.t5); });
    }
    if (opt.scheme == Scheme::alibi || opt.scheme == Scheme::t5) {
        // Per key: the column label, a row block's value, t5's ids of j - i: ~64 bytes.
        const std::uint64_t bytes = runtime::checked_product({run.n, 64}, "--positions");
        const std::string what = fmt::format("--positions {} (rows of {} keys)", run.n, run.n);
        runtime::reserve(bytes, what);
    }

    io::Output output(resolve_output(encode_output(opt)), show.arrays.size());
    run.dtype = output.dtype();
    run.angles = angle_dtype(opt.angles);
    SchemeRun exact_run = run;  // the exact values at double quality
    exact_run.angles.reset();
    exact_run.dtype = io::Dtype::float64;
    for (EncodeArray item : show.arrays) {
        const auto& entry = show_entry(table_of(opt.scheme), item);
        const ExactForm exact = exact_form(item, run);
        io::MatrixStream stream = entry.stream(run);
        if (!run.angles) stream = rounded_once(std::move(stream), exact);
        if (show.errors)
            stream = error_stream(std::move(stream), entry.stream(exact_run), exact,
                                  !run.angles && run.dtype == io::Dtype::float64);
        io::DriveOptions drive;  // about 2^18 values a block: memory flat in n
        drive.block_rows = std::clamp<std::size_t>(
            (std::size_t{1} << 18) / std::max<std::size_t>(stream.info.columns(), 1), 1, 4096);
        drive.compute_ahead = thread_count(opt.out) > 1;
        io::drive(output.sink(), stream, drive);
    }
    output.commit();
    return kOk;
}

}  // namespace attn::cli
