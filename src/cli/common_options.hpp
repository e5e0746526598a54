// The options every subcommand shares (-o -f --dtype --precision --no-header --threads
// --max-memory --cmap --plot --title --annotate), typed at parsing, and the output they select.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "io/output_spec.hpp"

namespace attn::cli {

struct OutputOptions {
    std::string output = "-";
    std::optional<io::Format> format;  // nullopt: from the extension, else table or csv
    io::Dtype dtype = io::Dtype::float32;
    int precision = 0;  // 0 = shortest round-trip
    bool no_header = false;
    std::size_t threads = 0;           // 0 = every core
    std::string max_memory;            // "" = half the physical memory
    std::optional<io::Colormap> cmap;  // nullopt: by the data, rdbu for both signs, else blues
    io::Plot plot = io::Plot::heatmap;
    std::optional<std::string> title;             // nullopt: the array's own title
    io::Annotate annotate = io::Annotate::auto_;  // cell values in svg heatmaps
    CLI::Option* dtype_option = nullptr;          // whether --dtype was typed
};

void add_output_options(CLI::App& app, OutputOptions& opt);

/// Threads to use: --threads, or every core.
std::size_t thread_count(const OutputOptions& opt);

/// The one place the process's thread limits are set (attn's parallel loops and OpenBLAS's
/// pool): main calls it once, before the subcommand runs.
void configure_threads(const OutputOptions& opt);

/// Refuses (UsageError naming `what` and the size) a request of `bytes` above --max-memory.
void check_memory(const OutputOptions& opt, std::uint64_t bytes, const std::string& what);

/// n * m * k ... in 64 bits, or UsageError naming `what` when it overflows.
std::uint64_t checked_product(std::initializer_list<std::uint64_t> factors,
                              const std::string& what);

/// The output these options ask for, resolved once (io::OutputError when it cannot be used;
/// UsageError for a malformed --max-memory).
io::OutputSpec resolve_output(const OutputOptions& opt);

}  // namespace attn::cli
