// attn complexity: the CNN / RNN / self-attention table (d2l 11.6.2; Vaswani et al. 2017,
// Table 1): symbolic, or as exact counts for given sizes, over a sweep of one size, with the
// crossover lengths, and measured by running each layer. The arrays are described in
// cli/complexity_arrays; this file checks the sizes and wires them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "attn/complexity.hpp"
#include "attn/complexity_timing.hpp"
#include "cli/arguments.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/complexity_arrays.hpp"
#include "cli/exit_code.hpp"
#include "io/format_columns.hpp"
#include "io/matrix_stream.hpp"
#include "io/progress.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::cli {

namespace {

// Option bounds (also applied to the values of --sweep).
constexpr std::int64_t kMaxPositions = std::int64_t{1} << 40;
constexpr std::int64_t kMaxDim = std::int64_t{1} << 24;
constexpr std::int64_t kMaxKernel = std::int64_t{1} << 24;
constexpr std::int64_t kMaxNeighborhood = std::int64_t{1} << 40;

// --measure refuses runs beyond these: the multiply-adds of every run (warm-up included) of
// every layer at every size (2^38 is about half a minute at 20 GFLOP/s; self-attention with
// its softmax runs nearer 8), and the recurrent layer's dependent steps, each a pair of small
// sgemv whose cost is latency (microseconds), not arithmetic.
constexpr u64 kMaxMeasuredMultiplyAdds = u64{1} << 38;
constexpr u64 kMaxMeasuredSteps = u64{1} << 24;
// The restricted layer runs in plain loops, not sgemm: its multiply-adds weigh this much more.
constexpr u64 kLoopWeight = 8;

struct ComplexityOptions {
    std::int64_t positions = 0;  // 0 = not given
    std::int64_t dim = 0;
    std::int64_t kernel = 3;
    std::int64_t neighborhood = 2;
    bool with_projections = false;
    std::string sweep;
    bool measure = false;
    std::int64_t repeat = 5;
    OutputOptions out;
};

// Which options were typed (sizes mode starts with any of them).
struct Given {
    const CLI::Option* positions;
    const CLI::Option* dim;
    const CLI::Option* kernel;
    const CLI::Option* neighborhood;
};

// The size a --sweep varies and its field.
struct Swept {
    std::optional<SizeVariable> variable;  // none: no sweep
    u64 LayerSizes::*field = nullptr;
};

// Each size, in the order of SizeVariable: the option that gives it, its limit, its field.
struct SizeField {
    SizeVariable variable;
    const char* option;
    std::int64_t max;
    u64 LayerSizes::*field;
};
constexpr SizeField kSizeFields[] = {
    {SizeVariable::n, "--positions", kMaxPositions, &LayerSizes::n},
    {SizeVariable::d, "--dim", kMaxDim, &LayerSizes::d},
    {SizeVariable::k, "--kernel", kMaxKernel, &LayerSizes::k},
    {SizeVariable::r, "--neighborhood", kMaxNeighborhood, &LayerSizes::r}};

// The points to compute: the given sizes, with the swept variable taking each value.
std::vector<LayerSizes> sweep_points(const ComplexityOptions& opt, const Given& given,
                                     Swept* swept) {
    LayerSizes base;
    base.n = static_cast<u64>(opt.positions);
    base.d = static_cast<u64>(opt.dim);
    base.k = static_cast<u64>(opt.kernel);
    base.r = static_cast<u64>(opt.neighborhood);
    base.with_projections = opt.with_projections;
    if (opt.sweep.empty()) {
        if (base.n == 0) throw UsageError("--positions: counts need n; give -n N or --sweep n=...");
        if (base.d == 0) throw UsageError("--dim: counts need d; give -d N or --sweep d=...");
        return {base};
    }
    const Sweep sweep = naming_option("--sweep", [&] { return parse_sweep(opt.sweep); });
    const auto at = static_cast<std::size_t>(sweep.variable);
    const SizeField& b = kSizeFields[at];
    const char* name = size_variable_name(sweep.variable);
    *swept = {sweep.variable, b.field};
    const CLI::Option* typed[] = {given.positions, given.dim, given.kernel, given.neighborhood};
    if (typed[at]->count() > 0)
        throw UsageError(fmt::format("--sweep: {} is swept; drop {}", name, b.option));
    std::vector<LayerSizes> points;
    for (u64 v : sweep.values) {
        if (v > static_cast<u64>(b.max))
            throw UsageError(
                fmt::format("--sweep: {} = {} is above the {} limit {}", name, v, b.option, b.max));
        LayerSizes s = base;
        s.*b.field = v;
        points.push_back(s);
    }
    if (points.front().n == 0)
        throw UsageError("--positions: counts need n; give -n N or sweep it");
    if (points.front().d == 0) throw UsageError("--dim: counts need d; give -d N or sweep it");
    return points;
}

// Refuses (exit 2, naming --measure) what would not fit in memory or not finish.
void check_measurable(const ComplexityOptions& opt, const std::vector<LayerSizes>& points) {
    const u64 runs = static_cast<u64>(opt.repeat) + 1;  // the warm-up too
    long double work = 0, steps = 0;
    for (const LayerSizes& s : points) {
        for (Layer layer : kLayers) {
            const std::string what =
                fmt::format("--measure: {} at {}", layer_name(layer), sizes_text(s));
            const u64 bytes = naming_option(what, [&] { return measurement_bytes(layer, s); });
            runtime::reserve(bytes, what);
            const u64 ma = naming_option(what, [&] { return multiply_adds(layer, s); });
            work += static_cast<long double>(ma) * runs *
                    (layer == Layer::restricted_self_attention ? kLoopWeight : 1);
            if (layer == Layer::recurrent) steps += static_cast<long double>(s.n) * runs;
        }
    }
    if (work > kMaxMeasuredMultiplyAdds)
        throw UsageError(fmt::format(
            "--measure: would run about {:.3g} multiply-adds ({} runs per layer and size), "
            "more than the limit of 2^38; use smaller sizes or a lower --repeat",
            static_cast<double>(work), runs));
    if (steps > kMaxMeasuredSteps)
        throw UsageError(fmt::format(
            "--measure: the recurrent layer would take {:.3g} dependent steps, more than the "
            "limit of 2^24; use a smaller n or a lower --repeat",
            static_cast<double>(steps)));
}

int run_complexity(const ComplexityOptions& opt, const Given& given) {
    if (opt.out.dtype_option->count() > 0 && opt.out.dtype == io::Dtype::float32)
        throw UsageError(
            "--dtype: complexity prints exact integers and float64 numbers; float32 does not "
            "apply");
    const bool sizes_mode = given.positions->count() || given.dim->count() ||
                            given.kernel->count() || given.neighborhood->count() ||
                            !opt.sweep.empty() || opt.measure || opt.with_projections;
    io::OutputSpec spec = resolve_output(opt.out);
    // An svg draws curves over a sweep: by default n = 16 ... 65536 at d = 512.
    const bool picture = io::format_columns(spec.format).picture;
    ComplexityOptions drawn = opt;
    if (picture) {
        if (opt.measure)
            throw UsageError(
                "--measure: the svg draws counted multiply-adds; write measurements with -f csv "
                "or table");
        if (opt.sweep.empty() && given.positions->count())
            throw UsageError(
                "--positions: the svg draws curves over n; give --sweep n=A:B[:xF], or drop -n "
                "for n = 16 ... 65536");
        if (opt.sweep.empty()) drawn.sweep = "n=16:65536:x2";
        if (!given.dim->count()) drawn.dim = 512;
        spec.style.picture.plot = io::Plot::lines;
    }
    const bool values = io::is_binary(spec.format);
    const bool several = spec.holds_several_arrays();
    const RealFormat real(spec.format, opt.out.precision);
    const auto& symbolic = symbolic_table();

    if (!sizes_mode && !picture) {
        io::Output output(spec, 1);
        io::drive(output.sink(), symbolic_stream());
        output.commit();
        return kOk;
    }

    Swept swept;
    const std::vector<LayerSizes> points = sweep_points(drawn, given, &swept);
    const std::string variable = swept.variable ? size_variable_name(*swept.variable) : "";
    std::vector<Row> rows;
    for (const LayerSizes& s : points)
        for (const SymbolicRow& sym : symbolic)
            rows.push_back(
                {naming_option(
                     fmt::format("--positions/--dim/--kernel/--neighborhood: {}", sizes_text(s)),
                     [&] { return layer_counts(sym.layer, s); }),
                 symbolic_complexity(sym, s.with_projections), &sym});
    if (opt.measure) check_measurable(opt, points);

    if (picture) {
        io::Output output(spec, 1);
        const LayerSizes& fixed = points.front();
        std::string title = fmt::format("multiply-adds of one layer against {}", variable);
        for (const SizeField& f : kSizeFields)
            if (f.variable != swept.variable)
                title += fmt::format(", {} = {}", size_variable_name(f.variable), fixed.*f.field);
        if (opt.with_projections) title += ", with the Q/K/V/output projections";
        io::drive(output.sink(), curves_stream(rows, points, *swept.variable, swept.field, title));
        output.commit();
        return kOk;
    }

    // Which further arrays this output holds.
    const bool show_crossovers = several;
    const bool show_exponents = several && opt.measure && points.size() >= 2;

    // Opened before measuring: a format that cannot be used fails now, and --threads applies.
    io::Output output(spec, 1 + show_crossovers + show_exponents);
    io::Progress progress("complexity --measure", opt.measure ? rows.size() : 0,
                          !opt.out.quiet && !spec.to_terminal);
    if (opt.measure)
        for (Row& row : rows) {
            row.measured = naming_option("--measure", [&] {
                return measure_layer(row.counts.layer, row.counts.sizes,
                                     static_cast<std::size_t>(opt.repeat),
                                     std::numeric_limits<u64>::max());
            });
            progress.advance(1);
        }
    progress.finish();

    std::string title = variable.empty() ? "per-layer counts, " + sizes_text(points.front())
                                         : fmt::format("per-layer counts over {} ({} sizes)",
                                                       variable, points.size());
    if (opt.with_projections) title += ", with the Q/K/V/output projections";
    if (opt.measure) title += fmt::format(", measured: median of {} runs", opt.repeat);
    std::vector<io::MatrixStream> streams{counts_stream(rows, real, opt.measure, title, values)};

    const std::vector<Crossover> cross =
        show_crossovers ? crossovers(points) : std::vector<Crossover>{};
    if (show_crossovers) streams.push_back(crossovers_stream(cross, values));
    const std::vector<Exponent> exps =
        show_exponents ? exponents(rows, points, swept.field, opt.with_projections)
                       : std::vector<Exponent>{};
    if (show_exponents) streams.push_back(exponents_stream(exps, variable, real, values));
    io::drive(output.sink(), streams);
    output.commit();
    return kOk;
}

}  // namespace

Command add_complexity(CLI::App& root) {
    auto opt = std::make_shared<ComplexityOptions>();  // bound addresses must outlive parse()
    CLI::App* sub = root.add_subcommand(
        "complexity",
        "Cost of convolution, recurrent and self-attention layers: symbolic, counted, measured");
    auto given = std::make_shared<Given>();
    given->positions = sub->add_option("-n,--positions", opt->positions, "Sequence length n")
                           ->check(CLI::Range(std::int64_t{1}, kMaxPositions));
    given->dim = sub->add_option("-d,--dim", opt->dim, "Width d (channels, hidden size, d_model)")
                     ->check(CLI::Range(std::int64_t{1}, kMaxDim));
    given->kernel = sub->add_option("-k,--kernel", opt->kernel, "Convolution kernel size k")
                        ->check(CLI::Range(std::int64_t{1}, kMaxKernel))
                        ->capture_default_str();
    given->neighborhood =
        sub->add_option("-r,--neighborhood", opt->neighborhood,
                        "Restricted self-attention: each query sees r neighbors (r + 1 keys)")
            ->check(CLI::Range(std::int64_t{1}, kMaxNeighborhood))
            ->capture_default_str();
    sub->add_flag("--with-projections", opt->with_projections,
                  "Count the Q, K, V and output projections in the attention rows (+4 n d^2)");
    sub->add_option("--sweep", opt->sweep,
                    "One row per size of n, d, k or r: n=16:65536:x2, d=64:512:+64 or n=16,32,64")
        ->type_name("VAR=VALUES");
    CLI::Option* measure =
        sub->add_flag("--measure", opt->measure,
                      "Run each layer on random data (float32): median seconds and GFLOP/s");
    sub->add_option("--repeat", opt->repeat, "Timed runs per layer and size, after one warm-up")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000}))
        ->needs(measure)
        ->capture_default_str();
    add_output_options(*sub, opt->out);
    add_curve_columns(*sub, opt->out);
    opt->out.dtype = io::Dtype::float64;  // the only one it accepts, shown as the default
    opt->out.dtype_option->default_str("float64");
    sub->footer(
        "Examples:\n"
        "  attn complexity                          the symbolic table (d2l 11.6.2)\n"
        "  attn complexity -n 1024 -d 512 -k 3      exact counts for these sizes\n"
        "  attn complexity --sweep n=16:65536:x2 -d 512 -f csv   long form for plotting\n"
        "  attn complexity --sweep n=256:4096:x2 -d 64 --measure  times and fitted exponents");
    return {sub, [opt, given] { return run_complexity(*opt, *given); }, &opt->out};
}

}  // namespace attn::cli
