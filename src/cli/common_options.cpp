#include "cli/common_options.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <thread>

#include "cli/command.hpp"
#include "io/directory_sink.hpp"
#include "runtime/blas.hpp"
#include "runtime/parallel.hpp"

namespace attn::cli {

namespace {

bool is_directory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool wants_directory(const std::string& output) {
    return output != "-" && !output.empty() && (output.back() == '/' || is_directory(output));
}

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
    if (suffix == "K" || suffix == "k")
        scale = 1024.0;
    else if (suffix == "M")
        scale = 1024.0 * 1024;
    else if (suffix == "G")
        scale = 1024.0 * 1024 * 1024;
    else if (suffix == "T")
        scale = 1024.0 * 1024 * 1024 * 1024;
    else if (!suffix.empty())
        pos = 0;
    if (pos == 0 || !(value > 0) || value * scale > 1.8e19)
        throw UsageError("--max-memory: '" + text +
                         "' is not a size; use bytes or a number with K, M, G or T (e.g. 4G)");
    return static_cast<std::uint64_t>(value * scale);
}

}  // namespace

void add_output_options(CLI::App& app, OutputOptions& opt) {
    app.add_option("-o,--output", opt.output,
                   "Where the result goes: a file, DIR/ (one file per array), or - (stdout)")
        ->type_name("PATH");
    app.add_option("-f,--format", opt.format,
                   "Output format; default: from the file's extension, else table on a "
                   "terminal and csv otherwise")
        ->check(CLI::IsMember(io::format_name_list()))
        ->type_name("FORMAT");
    app.add_option("--dtype", opt.dtype, "Element type of the result")
        ->check(CLI::IsMember({"float32", "float64"}))
        ->capture_default_str();
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
    app.add_option("--cmap", opt.cmap,
                   "Colour map of svg and heatmap (default: rdbu for data of both signs, "
                   "else blues)")
        ->check(CLI::IsMember({"blues", "viridis", "rdbu"}))
        ->type_name("MAP");
    app.add_option("--plot", opt.plot,
                   "svg picture: heatmap, or lines (each column a curve over the rows)")
        ->check(CLI::IsMember({"heatmap", "lines"}))
        ->capture_default_str();
}

io::ColorMode heatmap_color_mode(bool to_terminal) {
    const char* no_color = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    if (!to_terminal || (no_color && *no_color) || (term && std::string_view(term) == "dumb"))
        return io::ColorMode::none;
    const char* colorterm = std::getenv("COLORTERM");
    const std::string_view ct = colorterm ? colorterm : "";
    return ct == "truecolor" || ct == "24bit" ? io::ColorMode::truecolor : io::ColorMode::xterm256;
}

std::size_t thread_count(const OutputOptions& opt) {
    if (opt.threads > 0) return opt.threads;
    const unsigned n = std::thread::hardware_concurrency();
    return n > 0 ? n : 1;
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

io::Format resolve_format(const OutputOptions& opt) {
    if (!opt.format.empty()) return *io::parse_format(opt.format);
    if (wants_directory(opt.output)) return io::Format::csv;
    if (opt.output != "-" && !opt.output.empty()) {
        if (auto f = io::format_from_extension(opt.output)) return *f;
        throw UsageError("--output: cannot tell the format from '" + opt.output +
                         "'; name it with -f " + io::format_names());
    }
    return io::is_terminal(STDOUT_FILENO) ? io::Format::table : io::Format::csv;
}

bool writes_directory(const OutputOptions& opt) {
    return wants_directory(opt.output);
}

bool holds_several_arrays(const OutputOptions& opt) {
    return writes_directory(opt) || io::holds_several_arrays(resolve_format(opt));
}

Output::Output(const OutputOptions& opt, std::size_t arrays) {
    format_ = resolve_format(opt);
    dtype_ = opt.dtype == "float64" ? io::Dtype::float64 : io::Dtype::float32;
    if (!opt.max_memory.empty()) check_memory(opt, 0, "--max-memory");

    io::TextStyle style;
    if (opt.precision > 0) style.precision = opt.precision;
    style.header = !opt.no_header;
    style.threads = thread_count(opt);
    if (!opt.cmap.empty()) style.picture.cmap = io::parse_colormap(opt.cmap);
    style.picture.plot = opt.plot == "lines" ? io::Plot::lines : io::Plot::heatmap;
    if (style.picture.plot == io::Plot::lines && format_ != io::Format::svg)
        throw UsageError(fmt::format("--plot lines draws an svg, not {}; use -f svg or -o FILE.svg",
                                     io::format_name(format_)));
    blas::set_threads(static_cast<int>(style.threads));
    set_thread_limit(style.threads);

    const bool to_stdout = opt.output == "-" || opt.output.empty();
    style.picture.color = heatmap_color_mode(to_stdout && io::is_terminal(STDOUT_FILENO));
    if (to_stdout && io::is_terminal(STDOUT_FILENO)) {
        winsize ws{};
        if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
            style.width = ws.ws_col;
            style.height = ws.ws_row;
        }
    } else {
        if (const char* c = std::getenv("COLUMNS")) style.width = std::max(20, std::atoi(c));
        if (const char* l = std::getenv("LINES")) style.height = std::max(0, std::atoi(l));
    }
    if (to_stdout && io::is_binary(format_) && io::is_terminal(STDOUT_FILENO))
        throw UsageError(
            fmt::format("--format {}: binary data not written to a terminal; use -o FILE or a pipe",
                        io::format_name(format_)));

    if (wants_directory(opt.output)) {
        if (!is_directory(opt.output))
            throw UsageError("--output: directory '" + opt.output + "' does not exist");
        sink_ = std::make_unique<io::DirectorySink>(opt.output, format_, style);
        return;
    }
    if (arrays > 1 && !io::holds_several_arrays(format_))
        throw UsageError(fmt::format(
            "--format {} holds one array and this run writes {}; use -f npz, json or table, "
            "or -o DIR/ for one file per array",
            io::format_name(format_), arrays));
    file_ = std::make_unique<io::OutputFile>(opt.output);
    sink_ = io::make_writer(format_, *file_, style);
}

Output::~Output() = default;

void Output::commit() {
    sink_->finish();
    if (file_) file_->commit();
}

}  // namespace attn::cli
