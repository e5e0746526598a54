// The options every subcommand shares (-o -f --dtype --precision --no-header --threads
// --max-memory --cmap --plot) and the output they select.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "io/array_sink.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"

namespace attn::cli {

struct OutputOptions {
    std::string output = "-";
    std::string format;  // "" = from the extension, else table on a terminal, csv otherwise
    std::string dtype = "float32";
    int precision = 0;  // 0 = shortest round-trip
    bool no_header = false;
    std::size_t threads = 0;  // 0 = every core
    std::string max_memory;   // "" = half the physical memory
    std::string cmap;         // "" = by the data: rdbu for both signs, else blues
    std::string plot = "heatmap";
};

void add_output_options(CLI::App& app, OutputOptions& opt);

/// Threads to use: --threads, or every core. Also bounds OpenBLAS's pool.
std::size_t thread_count(const OutputOptions& opt);

/// Refuses (UsageError naming `what` and the size) a request of `bytes` above --max-memory.
void check_memory(const OutputOptions& opt, std::uint64_t bytes, const std::string& what);

/// n * m * k ... in 64 bits, or UsageError naming `what` when it overflows.
std::uint64_t checked_product(std::initializer_list<std::uint64_t> factors,
                              const std::string& what);

/// The resolved destination of one run: format, dtype, writer; commit() at the end.
class Output {
  public:
    /// arrays: how many arrays the run will write (a single-array format refuses more).
    /// Throws UsageError for a format that cannot be used here.
    Output(const OutputOptions& opt, std::size_t arrays);
    ~Output();

    io::ArraySink& sink() { return *sink_; }
    io::Format format() const { return format_; }
    io::Dtype dtype() const { return dtype_; }
    /// Writes trailers and moves the file(s) into place.
    void commit();

  private:
    io::Format format_;
    io::Dtype dtype_;
    std::unique_ptr<io::OutputFile> file_;
    std::unique_ptr<io::ArraySink> sink_;
};

/// The format a run would use with these options and this many arrays (no file is opened).
io::Format resolve_format(const OutputOptions& opt);

/// Whether -o names a directory (DIR/, or an existing directory): one file per array.
bool writes_directory(const OutputOptions& opt);

/// Whether the output can take several arrays: a format that holds several, or a directory.
bool holds_several_arrays(const OutputOptions& opt);

/// The heatmap's colours for standard output: none (grey ramp) when it is not a terminal,
/// NO_COLOR is set and non-empty, or TERM=dumb; 24-bit when COLORTERM is truecolor or
/// 24bit; xterm's 256 colours otherwise. A file (-o) gets none.
io::ColorMode heatmap_color_mode(bool to_terminal);

}  // namespace attn::cli
