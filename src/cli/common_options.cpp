#include "cli/common_options.hpp"

#include <cstdlib>
#include <thread>

#include "cli/arguments.hpp"
#include "cli/enum_option.hpp"
#include "cli/errors.hpp"
#include "runtime/heap.hpp"
#include "runtime/memory_budget.hpp"
#include "runtime/parallel.hpp"

namespace attn::cli {

namespace {

constexpr std::uint64_t kMinMemory = std::uint64_t{1} << 20;

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
const NameTable<io::Dtype> kAllDtypes{{"float32", io::Dtype::float32},
                                      {"float64", io::Dtype::float64},
                                      {"bfloat16", io::Dtype::bfloat16},
                                      {"float16", io::Dtype::float16}};
const NameTable<io::Colormap> kColormaps{{"blues", io::Colormap::blues},
                                         {"viridis", io::Colormap::viridis},
                                         {"rdbu", io::Colormap::rdbu}};
const NameTable<int> kColor{{"auto", 0}, {"always", 1}, {"never", 2}};
const NameTable<io::Plot> kPlots{{"heatmap", io::Plot::heatmap}, {"lines", io::Plot::lines}};
const NameTable<io::Annotate> kAnnotate{{"auto", io::Annotate::auto_},
                                        {"never", io::Annotate::never},
                                        {"always", io::Annotate::always}};

// A check that parse accepts the text, its message the reason (CLI11 prefixes the option).
template <class Parse>
CLI::Validator grammar(Parse parse) {
    return CLI::Validator(
        [parse](std::string& text) -> std::string {
            try {
                parse(text);
            } catch (const std::invalid_argument& e) {
                return e.what();
            }
            return {};
        },
        "");
}

}  // namespace

void add_output_options(CLI::App& app, OutputOptions& opt, bool reduced) {
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
        add_enum_option(app, "--dtype", opt.dtype, reduced ? kAllDtypes : kDtypes,
                        reduced ? "Element type of the result (bfloat16: npy <f4 holding "
                                  "bfloat16 values)"
                                : "Element type of the result");
    app.add_option("--precision", opt.precision,
                   "Significant digits in csv/tsv/json (default: shortest round-trip); "
                   "decimals in table (default 4)")
        ->check(CLI::Range(1, 17))
        ->type_name("N");
    app.add_flag("--no-header", opt.no_header, "csv/tsv without the header row");
    app.add_flag("--quiet", opt.quiet, "No progress bar on standard error for long jobs");
    app.add_option("--threads", opt.threads, "Threads to use, BLAS's included (default: all cores)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1024}))
        ->type_name("N");
    app.add_option("--max-memory", opt.max_memory,
                   "Refuse inputs and results needing more memory than this, e.g. 512M or 4G "
                   "(default: half of RAM; at least 1M)")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                std::uint64_t bytes = 0;
                try {
                    bytes = parse_size(text);
                } catch (const std::invalid_argument& e) {
                    char* end = nullptr;
                    const double number = std::strtod(text.c_str(), &end);
                    if (!text.empty() && *end == '\0' && number >= 0 && number < 1)
                        bytes = 0;
                    else
                        return e.what();
                }
                if (bytes < kMinMemory) return "'" + text + "' is below the least accepted, 1M";
                return {};
            },
            ""))
        ->type_name("SIZE");
    app.add_option_function<io::Colormap>(
           "--cmap", [&opt](const io::Colormap& c) { opt.cmap = c; },
           "Colour map of svg and heatmap (default: rdbu for data of both signs, "
           "else blues)")
        ->transform(enum_names(kColormaps))
        ->type_name("MAP");
    app.add_option_function<int>(
           "--color",
           [&opt](const int& c) {
               opt.color = c == 0 ? std::nullopt : std::optional<bool>(c == 1);
           },
           "Colours in heatmap: auto (a terminal without NO_COLOR or TERM=dumb), always, never")
        ->transform(enum_names(kColor))
        ->type_name("WHEN");
    add_enum_option(app, "--plot", opt.plot, kPlots,
                    "svg picture: heatmap, or lines (each column a curve over the rows)");
    app.add_option_function<std::string>(
           "--title", [&opt](const std::string& t) { opt.title = t; },
           "svg and heatmap: the picture's title (default: what the array is, and its shape)")
        ->type_name("TEXT");
    app.add_option_function<std::string>(
           "--size", [&opt](const std::string& t) { opt.size = parse_picture_size(t); },
           "svg and png: the picture's width x height, its drawing scaled to fit, e.g. "
           "1600x900 (png: pixels)")
        ->check(grammar(parse_picture_size))
        ->type_name("WxH");
    app.add_option_function<std::string>(
           "--range", [&opt](const std::string& t) { opt.range = parse_range(t); },
           "svg, png and heatmap: the colour scale's ends, e.g. -1:1, so that pictures compare "
           "(default: the data's range)")
        ->check(grammar(parse_range))
        ->type_name("LO:HI");
    app.add_option("--font-scale", opt.font_scale,
                   "svg and png: text this many times its size, 0.5 to 4, e.g. 1.5 for slides")
        ->check(CLI::Range(0.5, 4.0))
        ->type_name("X");
    add_enum_option(app, "--annotate", opt.annotate, kAnnotate,
                    "svg heatmap: each cell's value with two decimals; auto: panels up to 20 x 20");
}

void add_curve_columns(CLI::App& app, OutputOptions& opt) {
    app.add_option("--columns", opt.curves,
                   "--plot lines: which curves to draw, a Python slice of them (0:2, -1, ::2)")
        ->type_name("A:B");
}

CLI::Option* add_file_option(CLI::App& app, const std::string& flags, std::string& file,
                             const std::string& help) {
    return app.add_option(flags, file, help)->type_name("FILE");
}

void check_conflicts(const CLI::App& app, const std::vector<Conflict>& rows) {
    const auto given = [&app](const std::string& name) {
        const CLI::Option* o = app.get_option(name);
        return o->count() > 0 && (o->get_expected_max() != 0 || o->as<bool>());
    };
    for (const Conflict& row : rows) {
        if (!given(row.option)) continue;
        for (const std::string& other : row.excludes) {
            if (!given(other)) continue;
            std::string reason = row.reason;
            const std::size_t at = reason.find("{}");
            if (at != std::string::npos)
                reason.replace(at, 2, other.front() == '-' ? other : "a " + other);
            throw UsageError(row.option + ": " + reason);
        }
    }
}

CLI::Validator torch_seed() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            try {
                text = std::to_string(parse_seed(text));
            } catch (const std::invalid_argument& e) {
                return e.what();
            }
            return {};
        },
        "");
}

std::size_t thread_count(const OutputOptions& opt) {
    if (opt.threads > 0) return opt.threads;
    const unsigned n = std::thread::hardware_concurrency();
    return n > 0 ? n : 1;
}

void configure_process(const OutputOptions& opt) {
    runtime::configure_threads(opt.threads);
    runtime::keep_freed_blocks();
    runtime::set_memory_limit(opt.max_memory.empty() ? 0 : parse_size(opt.max_memory));
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
    request.color = opt.color;
    request.threads = thread_count(opt);
    const io::Surroundings around = io::current_surroundings();
    // The format first: an unusable name is the first thing to say.
    io::resolve_format(request, around);
    io::OutputSpec spec = io::resolve_output(request, around);
    spec.style.picture.title = opt.title;
    spec.style.picture.annotate = opt.annotate;
    spec.style.picture.size = opt.size;
    spec.style.picture.range = opt.range;
    spec.style.picture.font_scale = opt.font_scale;
    if (!opt.curves.empty()) {
        if (spec.format != io::Format::svg && spec.format != io::Format::png)
            throw UsageError(
                "--columns: picks the curves of a line plot (--plot lines, -f svg or png)");
        spec.style.picture.curves = [text = opt.curves](std::size_t n) {
            const Slice s = naming_option("--columns", [&] { return parse_slice(text, n); });
            std::vector<std::size_t> picked;
            for (std::size_t k = 0; k < s.size(); ++k) picked.push_back(s[k]);
            return picked;
        };
    }
    return spec;
}

}  // namespace attn::cli
