// attn bits: 0..n-1 in binary beside the period of each bit and, with -d, the wavelength
// of each encoding column pair.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/bits.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_code.hpp"
#include "cli/show_table.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

namespace {

enum class Show { bits, periods, all };

struct BitsOptions {
    std::int64_t positions = 8;
    std::int64_t dim = 0;  // 0 = no encoding columns
    double base = 10000.0;
    std::optional<Show> show;  // nullopt: all where the format holds several, else bits
    OutputOptions out;
};

// What the arrays are made from.
struct BitsRun {
    io::Dtype dtype;
    std::size_t n, width, d;
    double base;
};

io::MatrixStream bits_stream(const BitsRun& run) {
    const std::size_t n = run.n, width = run.width;
    io::ArrayInfo info;
    info.name = "bits";
    info.title = "positions in binary";
    info.labels.push_back({"position", [](std::size_t r) { return std::to_string(r); }});
    info.labels.push_back({"binary", [width](std::size_t r) { return binary_string(r, width); }});
    for (std::size_t c = 0; c < width; ++c)
        info.column_labels.push_back(fmt::format("bit{}", width - 1 - c));
    info.shape = {n, width};
    info.dtype = io::Dtype::int64;  // 0 and 1: integers, whatever --dtype asks of periods
    info.row_axis = "position";
    info.column_axis = "bit";
    info.value_range = std::pair{0.0, 1.0};  // bits: 0 and 1 whatever the positions show
    auto fill = [width](std::size_t i, double* row) {
        for (std::size_t c = 0; c < width; ++c) row[c] = bit(i, width - 1 - c);
    };
    return {std::move(info), io::row_by_row(fill, width)};
}

// Row k: the period of bit k and, with d, the wavelength of column pair k.
io::MatrixStream periods_stream(const BitsRun& run) {
    const io::Dtype dtype = run.dtype;
    const std::size_t width = run.width, d = run.d;
    const double base = run.base;
    const std::size_t pairs = (d + 1) / 2;
    const std::size_t rows = d > 0 ? pairs : width;
    io::ArrayInfo info;
    info.name = "periods";
    info.title =
        d > 0 ? fmt::format("bit periods and column-pair wavelengths (d = {}, base {})", d, base)
              : "bit periods";
    info.labels.push_back({"k", [](std::size_t r) { return std::to_string(r); }});
    info.column_labels = {"bit_period"};
    if (d > 0) info.column_labels.push_back("wavelength");
    info.shape = {rows, info.column_labels.size()};
    info.dtype = dtype;
    auto fill = [d, base](std::size_t k, double* row) {
        row[0] = bit_period(k);
        if (d > 0) row[1] = pair_wavelength(k, d, base);
    };
    const std::size_t columns = info.columns();
    return {std::move(info), io::row_by_row(fill, columns)};
}

const ShowTable<Show, BitsRun> kShow{
    {Show::bits, "bits", "(n, bits)", "0..n-1 in binary, most significant bit first", bits_stream},
    {Show::periods, "periods", "(bits or d/2, 1 or 2)",
     "period of bit k; with -d, wavelength of column pair k", periods_stream},
};

int run_bits(const BitsOptions& opt) {
    if (!std::isfinite(opt.base) || !(opt.base > 1.0))
        throw UsageError(fmt::format("--base: {} is not a finite number greater than 1", opt.base));
    const auto n = static_cast<std::size_t>(opt.positions);
    const auto d = static_cast<std::size_t>(opt.dim);
    const io::OutputSpec spec = resolve_output(opt.out);
    const Show show = opt.show.value_or(spec.holds_several_arrays() ? Show::all : Show::bits);
    const BitsRun run{spec.dtype, n, binary_width(n), d, opt.base};

    std::vector<io::MatrixStream> streams;
    for (const auto& entry : kShow)
        if (show == Show::all || show == entry.item) streams.push_back(entry.stream(run));
    io::Output output(spec, streams.size());
    io::drive(output.sink(), streams);
    output.commit();
    return kOk;
}

}  // namespace

Command add_bits(CLI::App& root) {
    auto opt = std::make_shared<BitsOptions>();
    CLI::App* sub = root.add_subcommand(
        "bits", "Positions 0..n-1 in binary beside bit periods and encoding wavelengths");
    sub->add_option("-n,--positions", opt->positions, "Number of positions")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 32))
        ->capture_default_str();
    sub->add_option("-d,--dim", opt->dim,
                    "Encoding dimension d: adds the wavelength of each column pair")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24));
    sub->add_option("--base", opt->base, "Base of the wavelengths, > 1")->capture_default_str();
    sub->add_option_function<Show>(
           "--show", [opt](const Show& s) { opt->show = s; },
           "bits, periods, or all (default: all where the format holds several arrays, "
           "else bits)")
        ->transform(enum_names(show_names(kShow, {{"all", Show::all}})))
        ->type_name("TEXT");
    add_output_options(*sub, opt->out);
    add_curve_columns(*sub, opt->out);
    sub->footer(
        "Examples:\n"
        "  attn bits -n 8            0 to 7 in binary, and the period of each bit\n"
        "  attn bits -n 8 -d 8       beside the wavelengths 2*pi*base^(2j/d) of P's column pairs\n"
        "  attn bits -n 16 --show bits -f csv\n" +
        show_help(kShow));
    return {sub, [opt] { return run_bits(*opt); }, &opt->out};
}

}  // namespace attn::cli
