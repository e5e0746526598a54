#include "cli/common_options.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <limits>
#include <string_view>
#include <thread>

#include "cli/enum_option.hpp"
#include "cli/errors.hpp"
#include "runtime/blas.hpp"
#include "runtime/parallel.hpp"

namespace attn::cli {

namespace {

std::uint64_t physical_memory() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

std::string human_bytes(std::uint64_t b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(b);
    int u = 0;
    while (v >= 1024 && u < 6) v /= 1024, ++u;
    return u == 0 ? fmt::format("{} B", b) : fmt::format("{:.1f} {}", v, units[u]);
}

// "4G", "512M", "100K", "123456" (bytes; suffixes are powers of 1024).
std::uint64_t parse_bytes(const std::string& text) {
    std::size_t pos = 0;
    double value = 0;
    try {
        value = std::stod(text, &pos);
    } catch (const std::exception&) {
        pos = 0;
    }
    double scale = 1;
    const std::string suffix = text.substr(pos);
    switch (suffix.size() == 1 ? suffix[0] : suffix.empty() ? '\0' : '?') {
        case '\0':
            break;
        case 'K':
        case 'k':
            scale = 1024.0;
            break;
        case 'M':
            scale = 1024.0 * 1024;
            break;
        case 'G':
            scale = 1024.0 * 1024 * 1024;
            break;
        case 'T':
            scale = 1024.0 * 1024 * 1024 * 1024;
            break;
        default:
            pos = 0;
    }
    if (pos == 0 || !(value > 0) || value * scale > 1.8e19)
        throw UsageError("--max-memory: '" + text +
                         "' is not a size; use bytes or a number with K, M, G or T (e.g. 4G)");
    return static_cast<std::uint64_t>(value * scale);
}

const NameTable<io::Format>& format_table() {
    static const NameTable<io::Format> table = [] {
        NameTable<io::Format> t;
        for (const std::string& name : io::format_name_list())
            t.emplace_back(name, *io::parse_format(name));
        return t;
    }();
    return table;
}

const NameTable<io::Dtype> kDtypes{{"float32", io::Dtype::float32},
                                   {"float64", io::Dtype::float64}};
const NameTable<io::Colormap> kColormaps{{"blues", io::Colormap::blues},
                                         {"viridis", io::Colormap::viridis},
                                         {"rdbu", io::Colormap::rdbu}};
const NameTable<io::Plot> kPlots{{"heatmap", io::Plot::heatmap}, {"lines", io::Plot::lines}};
const NameTable<io::Annotate> kAnnotate{{"auto", io::Annotate::auto_},
                                        {"never", io::Annotate::never},
                                        {"always", io::Annotate::always}};

}  // namespace

void add_output_options(CLI::App& app, OutputOptions& opt) {
    app.add_option("-o,--output", opt.output,
                   "Where the result goes: a file, DIR/ (one file per array), or - (stdout)")
        ->type_name("PATH");
    app.add_option_function<io::Format>(
           "-f,--format", [&opt](const io::Format& f) { opt.format = f; },
           "Output format; default: from the file's extension, else table on a "
           "terminal and csv otherwise")
        ->transform(enum_names(format_table()))
        ->type_name("FORMAT");
    opt.dtype_option =
        add_enum_option(app, "--dtype", opt.dtype, kDtypes, "Element type of the result");
    app.add_option("--precision", opt.precision,
                   "Significant digits in csv/tsv/json (default: shortest round-trip); "
                   "decimals in table (default 4)")
        ->check(CLI::Range(1, 17))
        ->type_name("N");
    app.add_flag("--no-header", opt.no_header, "csv/tsv without the header row");
    app.add_option("--threads", opt.threads, "Threads to use, BLAS's included (default: all cores)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1024}))
        ->type_name("N");
    app.add_option("--max-memory", opt.max_memory,
                   "Refuse requests needing more memory than this (default: half of RAM)")
        ->type_name("SIZE");
    app.add_option_function<io::Colormap>(
           "--cmap", [&opt](const io::Colormap& c) { opt.cmap = c; },
           "Colour map of svg and heatmap (default: rdbu for data of both signs, "
           "else blues)")
        ->transform(enum_names(kColormaps))
        ->type_name("MAP");
    add_enum_option(app, "--plot", opt.plot, kPlots,
                    "svg picture: heatmap, or lines (each column a curve over the rows)");
    app.add_option_function<std::string>(
           "--title", [&opt](const std::string& t) { opt.title = t; },
           "svg and heatmap: the picture's title (default: what the array is, and its shape)")
        ->type_name("TEXT");
    add_enum_option(app, "--annotate", opt.annotate, kAnnotate,
                    "svg heatmap: each cell's value with two decimals; auto: panels up to 20 x 20");
}

std::size_t thread_count(const OutputOptions& opt) {
    if (opt.threads > 0) return opt.threads;
    const unsigned n = std::thread::hardware_concurrency();
    return n > 0 ? n : 1;
}

void configure_threads(const OutputOptions& opt) {
    const std::size_t threads = thread_count(opt);
    blas::set_threads(static_cast<int>(threads));
    set_thread_limit(threads);
}

std::uint64_t checked_product(std::initializer_list<std::uint64_t> factors,
                              const std::string& what) {
    std::uint64_t p = 1;
    for (std::uint64_t f : factors) {
        if (f != 0 && p > std::numeric_limits<std::uint64_t>::max() / f)
            throw UsageError(what + ": the size overflows 64 bits");
        p *= f;
    }
    return p;
}

void check_memory(const OutputOptions& opt, std::uint64_t bytes, const std::string& what) {
    const std::uint64_t limit =
        opt.max_memory.empty() ? physical_memory() / 2 : parse_bytes(opt.max_memory);
    if (limit > 0 && bytes > limit)
        throw UsageError(fmt::format("{}: needs {} of memory, above the limit of {} (--max-memory)",
                                     what, human_bytes(bytes), human_bytes(limit)));
}

io::OutputSpec resolve_output(const OutputOptions& opt) {
    io::OutputRequest request;
    request.path = opt.output;
    request.format = opt.format;
    request.dtype = opt.dtype;
    if (opt.precision > 0) request.precision = opt.precision;
    request.header = !opt.no_header;
    request.cmap = opt.cmap;
    request.plot = opt.plot;
    request.threads = thread_count(opt);
    const io::Surroundings around = io::current_surroundings();
    // The format first: an unusable name is the first thing to say.
    io::resolve_format(request, around);
    if (!opt.max_memory.empty()) check_memory(opt, 0, "--max-memory");
    io::OutputSpec spec = io::resolve_output(request, around);
    spec.style.picture.title = opt.title;
    spec.style.picture.annotate = opt.annotate;
    return spec;
}

}  // namespace attn::cli
