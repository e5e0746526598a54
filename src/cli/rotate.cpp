// attn rotate: the relative-offset check. For each offset delta, the 2x2 rotation per column
// pair that maps P[i] to P[i+delta], its worst error over all i, and the offset-only
// dependence of P[i]·P[i+delta]. Exit 3 when an error exceeds the tolerance.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "attn/rotation.hpp"
#include "cli/arguments.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_code.hpp"
#include "cli/show_table.hpp"
#include "io/matrix_stream.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::cli {

namespace {

constexpr std::size_t kMaxOffsets = 1000000;

enum class Show { pairs, matrix, dot, summary };

struct RotateOptions {
    std::int64_t positions = 1000;
    std::int64_t dim = 512;
    double base = 10000.0;
    std::int64_t start = 0;
    std::string offset = "1";
    double tol = 0;  // read only when given
    Show show = Show::pairs;
    double up_to = 0;  // --positions-up-to, read only when given
    OutputOptions out;
    CLI::Option* tol_option = nullptr;
    CLI::Option* up_to_option = nullptr;
};

double as_double(std::int64_t v) {
    return static_cast<double>(v);
}

// Tables of numbers: every column is data (npy keeps them all), no row label fields. Rows are
// made by fill(r, out) as they are written: the pairs table has offsets x d/2 rows, so it is
// never held whole. Column x (the offset, the position, the pair) is the x axis of
// --plot lines, not a curve.
io::MatrixStream table_stream(std::string name, std::string title, std::vector<std::string> columns,
                              std::size_t rows,
                              std::function<void(std::size_t row, double* out)> fill,
                              std::size_t x = 0) {
    io::ArrayInfo info;
    info.x_column = x;
    info.name = std::move(name);
    info.title = std::move(title);
    info.column_labels = std::move(columns);
    info.shape = {rows, info.column_labels.size()};
    info.dtype = io::Dtype::float64;  // positions are exact integers, errors keep their digits
    const std::size_t width = info.columns();
    return {std::move(info), io::row_by_row(std::move(fill), width)};
}

// What the arrays are made from: the scan's results and what it was asked.
struct RotateRun {
    const std::vector<OffsetResult>& results;
    const std::vector<std::int64_t>& offsets;
    std::size_t d;
    double base;
    Precision precision;
    io::Dtype dtype;
};

io::MatrixStream pairs_stream(const RotateRun& run) {
    const auto& results = run.results;
    const std::size_t d = run.d;
    const double base = run.base;
    const Precision precision = run.precision;
    const std::size_t pairs = (d + 1) / 2;  // the lone sine of an odd d gets a row of NaN errors
    return table_stream(
        "pairs", "rotation per column pair: worst |R p_i - p_(i+delta)| over i",
        {"delta", "j", "w", "wavelength", "cos", "sin", "max_error", "at_i"},
        results.size() * pairs,
        [&results, pairs, d, base, precision](std::size_t row, double* out) {
            const OffsetResult& r = results[row / pairs];
            const std::size_t j = row % pairs;
            const double w = positions::pair_frequency(j, d, base);
            const PairRotation R = pair_rotation(r.delta, j, d, base, precision);
            const bool paired = j < r.pairs.size();
            const double values[] = {as_double(r.delta),
                                     as_double(static_cast<std::int64_t>(j)),
                                     w,
                                     2 * std::numbers::pi / w,
                                     R.cos,
                                     R.sin,
                                     paired ? r.pairs[j].max_error : NAN,
                                     paired ? as_double(r.pairs[j].at_i) : NAN};
            std::copy(std::begin(values), std::end(values), out);
        },
        1);
}

io::MatrixStream summary_stream(const RotateRun& run) {
    const auto& results = run.results;
    return table_stream("summary", "worst error per offset against the tolerance",
                        {"delta", "max_error", "at_i", "tol", "ratio", "ratio_at_i", "pass"},
                        results.size(), [&results](std::size_t row, double* out) {
                            const OffsetResult& r = results[row];
                            const double values[] = {as_double(r.delta),    r.max_error,
                                                     as_double(r.at_i),     r.tol_at_i,
                                                     r.max_ratio,           as_double(r.ratio_i),
                                                     r.passed() ? 1.0 : 0.0};
                            std::copy(std::begin(values), std::end(values), out);
                        });
}

io::MatrixStream dot_stream(const RotateRun& run) {
    const auto& results = run.results;
    return table_stream(
        "dot", "P[i]·P[i+delta] over i against sum_j cos(delta w_j)",
        {"delta", "min", "min_i", "max", "max_i", "spread", "closed_form", "max_error", "error_i"},
        results.size(), [&results](std::size_t row, double* out) {
            const OffsetResult& r = results[row];
            const double values[] = {as_double(r.delta),
                                     r.dot_min,
                                     as_double(r.dot_min_i),
                                     r.dot_max,
                                     as_double(r.dot_max_i),
                                     r.dot_max - r.dot_min,
                                     r.dot_closed,
                                     r.dot_max_error,
                                     as_double(r.dot_error_i)};
            std::copy(std::begin(values), std::end(values), out);
        });
}

// M_delta for every offset: one (offsets, d, d) array, streamed one row at a time.
io::MatrixStream matrix_stream(const RotateRun& run) {
    const std::size_t d = run.d;
    const double base = run.base;
    const Precision precision = run.precision;
    io::ArrayInfo info;
    info.name = "M";
    info.title = fmt::format("M_delta with P[i+delta] = M_delta P[i], base {}", base);
    auto shared = std::make_shared<std::vector<std::int64_t>>(run.offsets);
    info.labels.push_back(
        {"delta", [shared, d](std::size_t r) { return std::to_string((*shared)[r / d]); }});
    info.labels.push_back({"row", [d](std::size_t r) { return std::to_string(r % d); }});
    for (std::size_t c = 0; c < d; ++c) info.column_labels.push_back(std::to_string(c));
    info.shape = {run.offsets.size(), d, d};
    info.dtype = run.dtype;
    auto fill = [shared, d, base, precision](std::size_t r, double* out) {
        offset_matrix_row((*shared)[r / d], r % d, d, base, precision, out);
    };
    return {std::move(info), io::row_by_row(fill, d)};
}

// Positions 0, 10, 20, 50, ... and errors over decades: --plot lines draws them log-log.
io::MatrixStream sweep_stream(const std::vector<SweepRow>& sweep) {
    io::MatrixStream e = table_stream(
        "sweep", "worst rotation error against the position, float32 and float64",
        {"position", "float32_max_error", "float32_at_i", "float32_tol", "float32_ratio",
         "float64_max_error", "float64_at_i", "float64_tol", "float64_ratio"},
        sweep.size(), [&sweep](std::size_t row, double* out) {
            const SweepRow& s = sweep[row];
            const double values[] = {
                as_double(s.position),     s.float32.max_error, as_double(s.float32.at_i),
                s.float32.tol_at_i,        s.float32.max_ratio, s.float64.max_error,
                as_double(s.float64.at_i), s.float64.tol_at_i,  s.float64.max_ratio};
            std::copy(std::begin(values), std::end(values), out);
        });
    e.info.log_x = e.info.log_y = true;
    return e;
}

const ShowTable<Show, RotateRun> kShow{
    {Show::pairs, "pairs", "(offsets x d/2, 8)",
     "per offset and column pair: frequency, rotation, worst error", pairs_stream},
    {Show::matrix, "matrix", "(offsets, d, d)", "M_delta with P[i+delta] = M_delta P[i]",
     matrix_stream},
    {Show::dot, "dot", "(offsets, 9)", "P[i].P[i+delta] over i against its closed form",
     dot_stream},
    {Show::summary, "summary", "(offsets, 7)", "worst error per offset against the tolerance",
     summary_stream},
};

// One line on stderr for the worst failure; the exit status says the rest.
int verdict(const std::vector<OffsetResult>& results, const std::string& where) {
    const OffsetResult* worst = nullptr;
    std::size_t failed = 0;
    for (const OffsetResult& r : results)
        if (!r.passed()) {
            ++failed;
            if (!worst || r.max_ratio > worst->max_ratio) worst = &r;
        }
    if (!worst) return kOk;
    fmt::print(stderr,
               "attn: rotate: {} of {} offsets{} above the tolerance; worst: delta {}, "
               "error {:.3g} times the tolerance at i = {}\n",
               failed, results.size(), where, worst->delta, worst->max_ratio, worst->ratio_i);
    return kCheckFailed;
}

int run_rotate(const RotateOptions& opt) {
    if (!std::isfinite(opt.base) || !(opt.base > 1.0))
        throw UsageError(fmt::format("--base: {} is not a finite number greater than 1", opt.base));
    const bool fixed_tol = opt.tol_option->count() > 0;
    if (fixed_tol && (!std::isfinite(opt.tol) || !(opt.tol > 0)))
        throw UsageError(fmt::format("--tol: {} is not a finite number greater than 0", opt.tol));
    const bool sweep = opt.up_to_option->count() > 0;
    const double limit = 4503599627370496.0;  // 2^52: positions stay exact in float64
    if (sweep && (!(opt.up_to >= 1) || !(opt.up_to <= limit) || opt.up_to != std::floor(opt.up_to)))
        throw UsageError(fmt::format(
            "--positions-up-to: {} is not a whole number from 1 to 2^52 (1e3 and 1000 both work)",
            opt.up_to));
    const std::vector<std::int64_t> offsets =
        naming_option("--offset", [&] { return parse_offsets(opt.offset, kMaxOffsets); });
    const auto n = static_cast<std::size_t>(opt.positions);
    const auto d = static_cast<std::size_t>(opt.dim);
    for (std::int64_t o : offsets)
        if (static_cast<std::uint64_t>(o < 0 ? -o : o) >= n)
            throw UsageError(fmt::format(
                "--offset: {} leaves no pair of positions i, i + delta among -n {} positions", o,
                n));
    if (opt.start + opt.positions > (std::int64_t{1} << 52))
        throw UsageError("--start: the last position start + n - 1 is beyond 2^52");
    runtime::reserve(scan_bytes(d, offsets), "--offset/--dim");
    if (opt.show == Show::matrix)
        runtime::reserve(runtime::checked_product({offsets.size(), d, d, 8}, "--offset/--dim"),
                         "--show matrix");  // writers that cannot stream (npy, table) hold it

    ScanSpec spec;
    spec.n = n;
    spec.d = d;
    spec.base = opt.base;
    spec.start = opt.start;
    spec.tol = fixed_tol ? opt.tol : 0.0;
    spec.precision = opt.out.dtype == io::Dtype::float64 ? Precision::float64 : Precision::float32;

    // Said once, after every usage check, so a bad value still gets its one-line message.
    const auto note_odd_d = [&] {
        if (d % 2 == 0) return;
        fmt::print(
            stderr,
            "attn: rotate: note: d = {} is odd: column {} (the sine of pair {}) has no cosine "
            "beside it, so no linear map of P[i] gives it; it is left out of the check and the "
            "dot product{}\n",
            d, d - 1, d / 2,
            sweep                      ? ""
            : opt.show == Show::matrix ? ", and its row of M is NaN"
            : opt.show == Show::pairs  ? ", and its errors are NaN"
                                       : "");
    };

    if (sweep) {
        const auto up_to = static_cast<std::int64_t>(opt.up_to);
        if (up_to + opt.positions > (std::int64_t{1} << 52))
            throw UsageError("--positions-up-to: the last window ends beyond 2^52");
        io::Output output(resolve_output(opt.out), 1);
        note_odd_d();
        const std::vector<SweepRow> rows = sweep_positions(spec, offsets, up_to);
        io::drive(output.sink(), sweep_stream(rows));
        output.commit();
        std::vector<OffsetResult> all;
        for (const SweepRow& r : rows) {
            all.push_back(r.float32);
            all.push_back(r.float64);
        }
        return verdict(all, " (float32 and float64 at every position)");
    }

    io::Output output(resolve_output(opt.out), 1);  // checks the format before the scan runs
    note_odd_d();
    const std::vector<OffsetResult> results = scan_offsets(spec, offsets);
    const RotateRun run{results, offsets, d, opt.base, spec.precision, output.dtype()};
    io::drive(output.sink(), show_entry(kShow, opt.show).stream(run));
    output.commit();
    return verdict(results, "");
}

}  // namespace

Command add_rotate(CLI::App& root) {
    auto opt = std::make_shared<RotateOptions>();  // bound addresses must outlive parse()
    CLI::App* sub = root.add_subcommand(
        "rotate",
        "Check that a fixed 2x2 rotation per column pair maps P[i] to P[i+delta] (exit 3 if not)");
    sub->add_option("-n,--positions", opt->positions, "Positions i checked: start .. start+n-1")
        ->check(CLI::Range(std::int64_t{2}, std::int64_t{1} << 40))
        ->capture_default_str();
    sub->add_option("-d,--dim", opt->dim,
                    "Encoding dimension d, >= 2; an odd d's last sine is left out (see man attn)")
        ->check(CLI::Range(std::int64_t{2}, std::int64_t{1} << 24))
        ->capture_default_str();
    sub->add_option("--base", opt->base, "Base of the wavelengths, > 1")->capture_default_str();
    sub->add_option("--start", opt->start, "First position")
        ->check(CLI::Range(-(std::int64_t{1} << 52), std::int64_t{1} << 52))
        ->capture_default_str();
    sub->add_option("--offset", opt->offset,
                    "Offsets delta: 5, a list 1,5,10, or a range A:B[:STEP] with B included; "
                    "negatives allowed (-5:5)")
        ->type_name("LIST")
        ->capture_default_str();
    opt->tol_option = sub->add_option(
        "--tol", opt->tol,
        "Fixed tolerance for every i (default: u*(16 + 4*(|i|+|delta|)), u = 2^-24 for float32, "
        "2^-53 for float64)");
    opt->tol_option->type_name("X");
    add_enum_option(*sub, "--show", opt->show, show_names(kShow),
                    "pairs (per offset and pair), matrix (M_delta), dot (P[i].P[i+delta]), or "
                    "summary (per offset)");
    opt->up_to_option = sub->add_option(
        "--positions-up-to", opt->up_to,
        "Sweep: windows of -n positions starting at 0, 10, 20, 50, ... N; worst error in float32 "
        "and float64 side by side");
    opt->up_to_option->type_name("N");
    add_output_options(*sub, opt->out);
    opt->up_to_option->excludes("--start")->excludes("--show")->excludes("--dtype");
    sub->footer(
        "--dtype is the precision P is built and rotated in: float64 uses the accurate P, float32\n"
        "builds it as PyTorch code does (float32 angle float(i)/base^(2j/d), then sinf/cosf).\n"
        "Examples:\n"
        "  attn rotate -n 1000 -d 512 --offset 1:50 --show summary && echo ok\n"
        "  attn rotate -n 100 -d 8 --offset 3              the rotation of each pair, its error\n"
        "  attn rotate -d 4 --offset 1,2 --show matrix -o M.npy\n"
        "  attn rotate -n 1000 -d 128 --positions-up-to 1e7 -o sweep.csv\n" +
        show_help(kShow));
    return {sub, [opt] { return run_rotate(*opt); }, &opt->out};
}

}  // namespace attn::cli
