// Where a run's arrays go and how they look, resolved once from what was asked and from the
// surroundings (is standard output a terminal, how wide, which colours): path, format, dtype,
// text style, directory or file. Then Output opens it and hands out the sink.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "io/array_sink.hpp"
#include "io/colormap.hpp"
#include "io/dtype.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"

namespace attn::io {

/// What the user asked for, already typed (the command line parses it).
struct OutputRequest {
    std::string path = "-";        // a file, DIR/ (or an existing directory), or "-" = stdout
    std::optional<Format> format;  // nullopt: from the extension, else table on a terminal, csv
    Dtype dtype = Dtype::float32;
    std::optional<int> precision;  // nullopt: shortest round-trip
    bool header = true;
    std::optional<Colormap> cmap;  // nullopt: by the data
    Plot plot = Plot::heatmap;
    std::size_t threads = 1;    // text formatting threads
    std::optional<bool> color;  // heatmap colours: nullopt = auto (color_mode), else forced
};

/// The surroundings that decide defaults: standard output, its window, the environment
/// variables COLUMNS LINES NO_COLOR TERM COLORTERM.
struct Surroundings {
    bool stdout_is_terminal = false;
    std::size_t window_columns = 0, window_lines = 0;  // 0 = unknown
    std::map<std::string, std::string> variables;      // only those set
};
/// This process's surroundings.
Surroundings current_surroundings();

/// The heatmap's colours: none (grey ramp) when output is not a terminal, NO_COLOR is set
/// and non-empty, or TERM=dumb; 24-bit when COLORTERM is truecolor or 24bit; xterm's 256
/// colours otherwise.
ColorMode color_mode(bool to_terminal, const Surroundings& around);

/// A request that cannot be met. what() is a sentence without option names; the command line
/// words it for its options from kind and the fields.
struct OutputError : std::invalid_argument {
    enum class Kind {
        unknown_extension,      // path's extension names no format
        lines_needs_svg,        // plot lines in another format
        binary_to_terminal,     // npy/npz to a terminal
        missing_directory,      // DIR/, or the directory of a file, does not exist (path: it)
        contradicts_extension,  // the format asked for is not what the file's extension says
                                // (path: the file; .txt takes any text format)
        one_array_only,         // several arrays for a single-array format (arrays: how many,
                                // 0 when a writer found a second one)
        too_many_curves,        // plot lines with more columns than curves drawn (path: the
                                // array's name, arrays: its curves)
        too_many_tokens,        // an html page of more than kMaxHtmlTokens (arrays: the tokens)
        too_many_weights,       // an html page of more than kMaxHtmlWeights (path: the shape,
                                // arrays: the weights, or kMaxHtmlWeights + 1 beyond size_t)
    };
    OutputError(Kind kind, std::string path, Format format, std::size_t arrays);
    Kind kind;
    std::string path;
    Format format;
    std::size_t arrays;  // one_array_only: how many the run writes
};

/// The output resolved: every default decided.
struct OutputSpec {
    std::string path = "-";
    Format format = Format::csv;
    Dtype dtype = Dtype::float32;
    bool directory = false;    // one file per array into path
    bool to_terminal = false;  // standard output, and it is a terminal
    TextStyle style;           // precision, header, width x height, colours, threads
    /// Whether the output can take several arrays: a format that holds several, or a directory.
    bool holds_several_arrays() const;
};

/// Whether path is "-" (or empty): standard input or output rather than a file.
bool is_standard_stream(const std::string& path);

/// Whether path names a directory: "DIR/" or an existing directory.
bool names_directory(const std::string& path);

/// The format alone (what resolve_output would choose), for runs that decide what to write
/// from it. Throws OutputError(unknown_extension).
Format resolve_format(const OutputRequest& request, const Surroundings& around);

/// Throws OutputError for unknown_extension, lines_needs_svg, binary_to_terminal,
/// missing_directory and contradicts_extension.
OutputSpec resolve_output(const OutputRequest& request, const Surroundings& around);

/// The opened destination of one run: the writer for the spec; commit() at the end moves the
/// file(s) into place, and without it nothing is left behind.
class Output {
  public:
    /// arrays: how many arrays the run will write; a single-array format refuses more
    /// (OutputError one_array_only), but for html, whose page takes views and tables after
    /// its first array (html.hpp).
    Output(const OutputSpec& spec, std::size_t arrays);
    ~Output();
    ArraySink& sink() { return *sink_; }
    Format format() const { return format_; }
    Dtype dtype() const { return dtype_; }
    void commit();

  private:
    Format format_;
    Dtype dtype_;
    std::unique_ptr<OutputFile> file_;
    std::unique_ptr<ArraySink> sink_;
};

}  // namespace attn::io
