// attn complexity: the CNN / RNN / self-attention table (d2l 11.6.2; Vaswani et al. 2017,
// Table 1): symbolic, or as exact counts for given sizes, over a sweep of one size, with the
// crossover lengths, and measured by running each layer.
//
// Every column is text, numbers included: counts are 64-bit integers that a double would
// round above 2^53, so they are printed exactly and marked numeric (json writes them
// unquoted, tables right-align them). npy/npz cannot hold text: there the numbers are
// float64 values and the text columns are left out.
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
#include <vector>

#include "attn/complexity.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_code.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

namespace {

using u64 = std::uint64_t;

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
    const CLI::Option* dtype;
};

using Column = io::TableColumn;

Column text_column(std::string name, std::function<std::string(std::size_t)> text) {
    return {std::move(name), false, std::move(text), {}};
}

Column integer_column(std::string name, std::function<u64(std::size_t)> get) {
    return {std::move(name), true, [get](std::size_t r) { return std::to_string(get(r)); },
            [get](std::size_t r) { return static_cast<double>(get(r)); }};
}

// Real numbers (seconds, GFLOP/s, exponents): shortest round-trip, or --precision significant
// digits; 4 significant digits in the table unless --precision says otherwise.
class RealFormat {
  public:
    RealFormat(io::Format format, int precision) {
        if (precision > 0)
            digits_ = precision;
        else if (format == io::Format::table)
            digits_ = 4;
    }
    std::string operator()(double v) const {
        if (std::isnan(v)) return "nan";
        return digits_ ? fmt::format("{:.{}g}", v, *digits_) : fmt::format("{}", v);
    }

  private:
    std::optional<int> digits_;
};

Column real_column(std::string name, const RealFormat& format,
                   std::function<double(std::size_t)> get) {
    return {std::move(name), true, [format, get](std::size_t r) { return format(get(r)); }, get};
}

// The library's std::invalid_argument / std::overflow_error as a usage error naming `option`.
template <class F>
auto as_usage_error(const std::string& option, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const std::invalid_argument& e) {
        throw UsageError(option + ": " + e.what());
    } catch (const std::overflow_error& e) {
        throw UsageError(option + ": " + e.what());
    }
}

std::string sizes_text(const LayerSizes& s) {
    return fmt::format("n = {}, d = {}, k = {}, r = {}", s.n, s.d, s.k, s.r);
}

// The symbolic cost, with the projections' n d^2 term when they are counted.
std::string symbolic_complexity(const SymbolicRow& row, bool with_projections) {
    if (with_projections && row.layer == Layer::self_attention) return "O(n^2 d + n d^2)";
    if (with_projections && row.layer == Layer::restricted_self_attention)
        return "O(r n d + n d^2)";
    return std::string(row.complexity);
}

// Exponent of `variable` in the leading term of each row's cost (n -> infinity).
int asymptotic_exponent(Layer layer, const std::string& variable, bool with_projections) {
    const bool attention =
        layer == Layer::self_attention || layer == Layer::restricted_self_attention;
    const bool convolution = layer == Layer::convolution || layer == Layer::dilated_convolution;
    if (variable == "n") return layer == Layer::self_attention ? 2 : 1;
    if (variable == "d") return attention && !with_projections ? 1 : 2;
    if (variable == "k") return convolution ? 1 : 0;
    return layer == Layer::restricted_self_attention ? 1 : 0;  // r
}

// The points to compute: the given sizes, with the swept variable taking each value.
std::vector<LayerSizes> sweep_points(const ComplexityOptions& opt, const Given& given,
                                     std::string* variable) {
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
    const Sweep sweep = as_usage_error("--sweep", [&] { return parse_sweep(opt.sweep); });
    *variable = sweep.variable;
    struct Bound {
        const char* var;
        const char* option;
        const CLI::Option* given;
        std::int64_t max;
        u64 LayerSizes::*field;
    };
    const Bound bounds[] = {
        {"n", "--positions", given.positions, kMaxPositions, &LayerSizes::n},
        {"d", "--dim", given.dim, kMaxDim, &LayerSizes::d},
        {"k", "--kernel", given.kernel, kMaxKernel, &LayerSizes::k},
        {"r", "--neighborhood", given.neighborhood, kMaxNeighborhood, &LayerSizes::r}};
    std::vector<LayerSizes> points;
    for (const Bound& b : bounds) {
        if (sweep.variable != b.var) continue;
        if (b.given->count() > 0)
            throw UsageError(fmt::format("--sweep: {} is swept; drop {}", b.var, b.option));
        for (u64 v : sweep.values) {
            if (v > static_cast<u64>(b.max))
                throw UsageError(fmt::format("--sweep: {} = {} is above the {} limit {}", b.var, v,
                                             b.option, b.max));
            LayerSizes s = base;
            s.*b.field = v;
            points.push_back(s);
        }
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
            const u64 bytes = as_usage_error(what, [&] { return measurement_bytes(layer, s); });
            check_memory(opt.out, bytes, what);
            const u64 ma = as_usage_error(what, [&] { return multiply_adds(layer, s); });
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

// One row of the long table: a layer at one size.
struct Row {
    LayerCounts counts;
    std::string complexity;
    const SymbolicRow* symbolic;
    Measurement measured{};
};

int run_complexity(const ComplexityOptions& opt, const Given& given) {
    if (given.dtype->count() > 0 && opt.out.dtype == "float32")
        throw UsageError(
            "--dtype: complexity prints exact integers and float64 numbers; float32 does not "
            "apply");
    const bool sizes_mode = given.positions->count() || given.dim->count() ||
                            given.kernel->count() || given.neighborhood->count() ||
                            !opt.sweep.empty() || opt.measure || opt.with_projections;
    const io::Format format = resolve_format(opt.out);
    const bool values = io::is_binary(format);
    const bool several = holds_several_arrays(opt.out);
    const RealFormat real(format, opt.out.precision);
    const auto& symbolic = symbolic_table();

    if (!sizes_mode) {
        Output output(opt.out, 1);
        const std::vector<Column> columns{
            text_column("layer",
                        [&](std::size_t r) { return std::string(layer_name(symbolic[r].layer)); }),
            text_column("complexity",
                        [&](std::size_t r) { return std::string(symbolic[r].complexity); }),
            text_column(
                "sequential_operations",
                [&](std::size_t r) { return std::string(symbolic[r].sequential_operations); }),
            text_column("maximum_path_length", [&](std::size_t r) {
                return std::string(symbolic[r].maximum_path_length);
            })};
        io::drive(
            output.sink(),
            io::table_stream("complexity",
                             "cost of one layer: n tokens of width d, kernel k, neighborhood r",
                             symbolic.size(), columns, false));
        output.commit();
        return kOk;
    }

    std::string variable;
    const std::vector<LayerSizes> points = sweep_points(opt, given, &variable);
    std::vector<Row> rows;
    for (const LayerSizes& s : points)
        for (const SymbolicRow& sym : symbolic)
            rows.push_back(
                {as_usage_error(
                     fmt::format("--positions/--dim/--kernel/--neighborhood: {}", sizes_text(s)),
                     [&] { return layer_counts(sym.layer, s); }),
                 symbolic_complexity(sym, s.with_projections), &sym});
    if (opt.measure) check_measurable(opt, points);

    // Which further arrays this output holds.
    std::vector<LayerSizes> crossover_sizes;  // distinct (d, k), in order
    for (const LayerSizes& s : points)
        if (std::none_of(crossover_sizes.begin(), crossover_sizes.end(),
                         [&](const LayerSizes& c) { return c.d == s.d && c.k == s.k; }))
            crossover_sizes.push_back(s);
    const bool show_crossovers = several;
    const bool show_exponents = several && opt.measure && points.size() >= 2;

    // Opened before measuring: a format that cannot be used fails now, and --threads applies.
    Output output(opt.out, 1 + show_crossovers + show_exponents);
    if (opt.measure)
        for (Row& row : rows)
            row.measured = as_usage_error("--measure", [&] {
                return measure_layer(row.counts.layer, row.counts.sizes,
                                     static_cast<std::size_t>(opt.repeat),
                                     std::numeric_limits<u64>::max());
            });

    std::vector<Column> columns{
        text_column("layer",
                    [&](std::size_t r) { return std::string(layer_name(rows[r].counts.layer)); }),
        text_column("complexity", [&](std::size_t r) { return rows[r].complexity; }),
        text_column(
            "sequential_operations",
            [&](std::size_t r) { return std::string(rows[r].symbolic->sequential_operations); }),
        text_column(
            "maximum_path_length",
            [&](std::size_t r) { return std::string(rows[r].symbolic->maximum_path_length); }),
        integer_column("n", [&](std::size_t r) { return rows[r].counts.sizes.n; }),
        integer_column("d", [&](std::size_t r) { return rows[r].counts.sizes.d; }),
        integer_column("k", [&](std::size_t r) { return rows[r].counts.sizes.k; }),
        integer_column("r", [&](std::size_t r) { return rows[r].counts.sizes.r; }),
        integer_column("multiply_adds",
                       [&](std::size_t r) { return rows[r].counts.multiply_adds; }),
        integer_column("sequential_steps",
                       [&](std::size_t r) { return rows[r].counts.sequential_steps; }),
        {"path_length", true,
         [&](std::size_t r) {
             const auto& p = rows[r].counts.path_length;
             return p ? std::to_string(*p) : std::string("inf");
         },
         [&](std::size_t r) {
             const auto& p = rows[r].counts.path_length;
             return p ? static_cast<double>(*p) : std::numeric_limits<double>::infinity();
         }},
        integer_column("activation_floats",
                       [&](std::size_t r) { return rows[r].counts.activation_floats; }),
    };
    if (opt.measure) {
        columns.push_back(
            real_column("seconds", real, [&](std::size_t r) { return rows[r].measured.seconds; }));
        columns.push_back(
            real_column("gflops", real, [&](std::size_t r) { return rows[r].measured.gflops; }));
    }
    std::string title = variable.empty() ? "per-layer counts, " + sizes_text(points.front())
                                         : fmt::format("per-layer counts over {} ({} sizes)",
                                                       variable, points.size());
    if (opt.with_projections) title += ", with the Q/K/V/output projections";
    if (opt.measure) title += fmt::format(", measured: median of {} runs", opt.repeat);
    io::ArraySink& sink = output.sink();
    io::drive(sink, io::table_stream("complexity", title, rows.size(), columns, values));

    if (show_crossovers) {
        // Rows: recurrent then convolution, for each distinct (d, k).
        struct Crossover {
            Layer versus;
            LayerSizes sizes;
            u64 n;
        };
        std::vector<Crossover> cross;
        for (const LayerSizes& s : crossover_sizes)
            for (Layer versus : {Layer::recurrent, Layer::convolution})
                cross.push_back({versus, s, as_usage_error("--dim/--kernel", [&] {
                                     return attention_crossover(versus, s.d, s.k,
                                                                s.with_projections);
                                 })});
        auto condition = [&](std::size_t r) -> std::string {
            const Crossover& c = cross[r];
            if (c.n == 1) return "every n";
            if (c.versus == Layer::recurrent) return "n > d";
            return c.sizes.with_projections ? "n > (k - 4) d / 2" : "n > k d / 2";
        };
        const std::vector<Column> cc{
            text_column("versus",
                        [&](std::size_t r) { return std::string(layer_name(cross[r].versus)); }),
            text_column("condition", condition),
            integer_column("d", [&](std::size_t r) { return cross[r].sizes.d; }),
            integer_column("k", [&](std::size_t r) { return cross[r].sizes.k; }),
            integer_column("crossover_n", [&](std::size_t r) { return cross[r].n; }),
        };
        io::drive(sink, io::table_stream(
                            "crossovers",
                            "self-attention costs more multiply-adds than the other layer from n = "
                            "crossover_n on",
                            cross.size(), cc, values));
    }

    if (show_exponents) {
        std::vector<double> xs;
        for (const LayerSizes& s : points)
            xs.push_back(static_cast<double>(variable == "n"   ? s.n
                                             : variable == "d" ? s.d
                                             : variable == "k" ? s.k
                                                               : s.r));
        struct Exponent {
            Layer layer;
            int asymptotic;
            double counts, measured;
        };
        auto fit = [&](const std::vector<double>& ys) {
            try {
                return fit_exponent(xs, ys);
            } catch (const std::invalid_argument&) {  // equal sizes, a zero time
                return std::numeric_limits<double>::quiet_NaN();
            }
        };
        std::vector<Exponent> exps;
        for (std::size_t l = 0; l < kLayers.size(); ++l) {
            std::vector<double> counts, seconds;
            for (std::size_t p = 0; p < points.size(); ++p) {
                const Row& row = rows[p * kLayers.size() + l];
                counts.push_back(static_cast<double>(row.counts.multiply_adds));
                seconds.push_back(row.measured.seconds);
            }
            exps.push_back({kLayers[l],
                            asymptotic_exponent(kLayers[l], variable, opt.with_projections),
                            fit(counts), fit(seconds)});
        }
        const std::vector<Column> ec{
            text_column("layer",
                        [&](std::size_t r) { return std::string(layer_name(exps[r].layer)); }),
            text_column("variable", [&](std::size_t) { return variable; }),
            integer_column("asymptotic_exponent",
                           [&](std::size_t r) { return static_cast<u64>(exps[r].asymptotic); }),
            real_column("count_exponent", real, [&](std::size_t r) { return exps[r].counts; }),
            real_column("measured_exponent", real, [&](std::size_t r) { return exps[r].measured; }),
        };
        io::drive(sink,
                  io::table_stream(
                      "exponents",
                      fmt::format("exponent of {}: log-log slope of the counts and of the seconds",
                                  variable),
                      exps.size(), ec, values));
    }
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
    given->dtype = sub->get_option("--dtype");
    sub->footer(
        "Examples:\n"
        "  attn complexity                          the symbolic table (d2l 11.6.2)\n"
        "  attn complexity -n 1024 -d 512 -k 3      exact counts for these sizes\n"
        "  attn complexity --sweep n=16:65536:x2 -d 512 -f csv   long form for plotting\n"
        "  attn complexity --sweep n=256:4096:x2 -d 64 --measure  times and fitted exponents");
    return {sub, [opt, given] { return run_complexity(*opt, *given); }};
}

}  // namespace attn::cli
