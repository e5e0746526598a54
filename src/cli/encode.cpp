// attn encode: the positional-encoding matrix P (n x d), or X + P, streamed in row blocks.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attn/positional_encoding.hpp"
#include "attn/slice.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_code.hpp"

namespace attn::cli {

namespace {

struct EncodeOptions {
    std::int64_t positions = 60;
    std::int64_t dim = 32;
    double base = 10000.0;
    std::int64_t start = 0;
    std::string layout = "interleaved";
    std::string columns;  // "" = all
    std::string add;      // "" = P alone
    OutputOptions out;
};

int run_encode(const EncodeOptions& opt) {
    if (!std::isfinite(opt.base) || !(opt.base > 1.0))
        throw UsageError(fmt::format("--base: {} is not a finite number greater than 1", opt.base));
    const auto n = static_cast<std::size_t>(opt.positions);
    const auto d = static_cast<std::size_t>(opt.dim);
    Slice cols{0, d};
    if (!opt.columns.empty()) {
        try {
            cols = parse_slice(opt.columns, d);
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--columns: ") + e.what());
        }
    }
    const Layout layout = opt.layout == "split" ? Layout::split : Layout::interleaved;
    Output output(opt.out, 1);
    // float64 output gets the long-double combination: float32 is within 1 ulp either way.
    const PositionalEncoder encoder(
        d, opt.base, layout, std::max<std::size_t>(n, 1),
        output.dtype() == io::Dtype::float64 ? Combine::extended : Combine::fast);
    io::ArrayInfo info;
    info.name = "P";
    info.title = fmt::format("positional encoding P, base {}, {}", opt.base, opt.layout);
    const std::int64_t start = opt.start;
    info.labels.push_back({"position", [start](std::size_t r) {
                               return std::to_string(start + static_cast<std::int64_t>(r));
                           }});
    for (std::size_t j = cols.begin; j < cols.end; ++j) info.column_labels.push_back(std::to_string(j));
    info.shape = {n, cols.size()};
    info.dtype = output.dtype();

    io::ArraySink& sink = output.sink();
    sink.begin(info);
    const std::size_t block = encoder.block_rows();
    std::vector<double> P(block * d), selected(block * cols.size());
    for (std::size_t r = 0; r < n; r += block) {
        const std::size_t count = std::min(block, n - r);
        encoder.fill(start + static_cast<std::int64_t>(r), count, P.data());  // (count, d)
        const double* rows = P.data();
        if (cols.size() != d) {
            for (std::size_t k = 0; k < count; ++k)
                std::copy_n(&P[k * d + cols.begin], cols.size(), &selected[k * cols.size()]);
            rows = selected.data();
        }
        sink.rows(r, rows, count);
    }
    sink.end();
    output.commit();
    return kOk;
}

}  // namespace

Command add_encode(CLI::App& root) {
    auto opt = std::make_shared<EncodeOptions>();  // bound addresses must outlive parse()
    CLI::App* sub = root.add_subcommand(
        "encode", "Sinusoidal positional-encoding matrix P (n x d), or X + P");
    sub->add_option("-n,--positions", opt->positions, "Number of positions (rows)")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
        ->capture_default_str();
    sub->add_option("-d,--dim", opt->dim, "Encoding dimension d (columns); odd d ends with a sine")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24))
        ->capture_default_str();
    sub->add_option("--base", opt->base, "Base of the wavelengths, > 1")->capture_default_str();
    sub->add_option("--start", opt->start, "First position")
        ->check(CLI::Range(-(std::int64_t{1} << 52), std::int64_t{1} << 52))
        ->capture_default_str();
    sub->add_option("--layout", opt->layout,
                    "Column order: interleaved [s0 c0 s1 c1 ...] or split [s0 s1 ... c0 c1 ...]")
        ->check(CLI::IsMember({"interleaved", "split"}))
        ->capture_default_str();
    sub->add_option("--columns", opt->columns,
                    "Columns A:B to print, half-open, negatives from the end (e.g. 6:10)")
        ->type_name("A:B");
    add_output_options(*sub, opt->out);
    sub->footer(
        "Examples:\n"
        "  attn encode -n 60 -d 32 --columns 6:10   columns 6 to 9, the book's figure\n"
        "  attn encode -n 1000000 -d 128 -o P.npy   streamed: memory does not grow with n\n"
        "  attn encode -n 4 -d 6 -f csv --precision 6\n");
    return {sub, [opt] { return run_encode(*opt); }};
}

}  // namespace attn::cli
