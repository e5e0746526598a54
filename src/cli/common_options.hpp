// The options every subcommand shares (-o -f --dtype --precision --no-header --threads
// --max-memory --cmap --plot --title --annotate), typed at parsing, and the output they select.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/output_spec.hpp"

namespace attn::cli {

struct OutputOptions {
    std::string output = "-";
    std::optional<io::Format> format;  // nullopt: from the extension, else table or csv
    io::Dtype dtype = io::Dtype::float32;
    int precision = 0;  // 0 = shortest round-trip
    bool no_header = false;
    std::size_t threads = 0;           // 0 = every core
    std::string max_memory;            // "" = half the physical memory; else >= 1 MiB
    std::optional<io::Colormap> cmap;  // nullopt: by the data, rdbu for both signs, else blues
    io::Plot plot = io::Plot::heatmap;
    std::optional<std::string> title;                // nullopt: the array's own title
    std::optional<std::pair<int, int>> size;         // --size WxH of svg and png
    std::optional<std::pair<double, double>> range;  // --range LO:HI of the colour scale
    double font_scale = 1;                           // --font-scale of svg and png text
    std::string curves;  // --columns A:B of commands whose columns are not computed per column:
                         // which curves --plot lines draws ("" = all)
    io::Annotate annotate = io::Annotate::auto_;  // cell values in svg heatmaps
    bool quiet = false;                           // --quiet: no progress bar on standard error
    std::optional<bool> color;                    // --color: nullopt = auto
    CLI::Option* dtype_option = nullptr;          // whether --dtype was typed
};

/// reduced: --dtype also accepts bfloat16 and float16 (the subcommands that compute in them).
void add_output_options(CLI::App& app, OutputOptions& opt, bool reduced = false);

/// --columns A:B for a command whose --plot lines draws its columns as curves: a Python slice
/// of the curves (encode has its own --columns, which selects the columns P is computed for).
void add_curve_columns(CLI::App& app, OutputOptions& opt);

/// An option naming a file (type FILE, which shell completion completes with file names).
CLI::Option* add_file_option(CLI::App& app, const std::string& flags, std::string& file,
                             const std::string& help);

/// An option whose text `parse` turns into `value` where CLI11 reads it: parse's
/// std::invalid_argument is the option's error ("" is left to parse_errors' "an empty value").
template <class V>
CLI::Option* add_parsed_option(CLI::App& g, const char* name, std::optional<V>& value,
                               V (*parse)(const std::string&), const char* help) {
    return g
        .add_option_function<std::string>(
            name, [&value, parse](const std::string& t) { value = parse(t); }, help)
        ->check(CLI::Validator(
            [parse](std::string& text) -> std::string {
                try {
                    if (!text.empty()) parse(text);
                } catch (const std::invalid_argument& e) {
                    return e.what();
                }
                return {};
            },
            ""));
}

/// A row of a subcommand's conflicts: `option` given with any of `excludes` is refused,
/// "OPTION: REASON", the first {} of the reason naming the first of them given (a positional
/// argument as "a NAME"). A flag set to false (--flag=false) is not given. Checked after
/// parsing rather than with CLI11's excludes(), which prints "Excludes: ..." in the help.
struct Conflict {
    std::string option;
    std::vector<std::string> excludes;
    std::string reason;
};

/// The first row of `rows` whose option and one of its excludes are given: UsageError.
void check_conflicts(const CLI::App& app, const std::vector<Conflict>& rows);

/// A transformer for a std::uint64_t seed option: parse_seed's range and wrapping.
CLI::Validator torch_seed();

/// Threads to use: --threads, or every core.
std::size_t thread_count(const OutputOptions& opt);

/// The one place the process's limits are set, once, before the subcommand runs: threads
/// (attn's parallel loops and OpenBLAS's pool, runtime::configure_threads) and the memory
/// budget (runtime::set_memory_limit from --max-memory).
void configure_process(const OutputOptions& opt);

/// The output these options ask for, resolved once (io::OutputError when it cannot be used).
io::OutputSpec resolve_output(const OutputOptions& opt);

}  // namespace attn::cli
