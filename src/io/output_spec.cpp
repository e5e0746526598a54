#include "io/output_spec.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "io/directory_sink.hpp"
#include "io/format_columns.hpp"

namespace attn::io {

namespace {

bool is_directory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

const std::string* variable(const Surroundings& around, const char* name) {
    const auto it = around.variables.find(name);
    return it == around.variables.end() ? nullptr : &it->second;
}

std::string describe(OutputError::Kind kind, const std::string& path, Format format,
                     std::size_t arrays) {
    const std::string f(format_name(format));
    switch (kind) {
        case OutputError::Kind::unknown_extension:
            return "cannot tell the format from '" + path + "'";
        case OutputError::Kind::lines_needs_svg:
            return "lines are drawn in svg, not " + f;
        case OutputError::Kind::binary_to_terminal:
            return f + ": binary data not written to a terminal";
        case OutputError::Kind::missing_directory:
            return "directory '" + path + "' does not exist";
        case OutputError::Kind::contradicts_extension:
            return f + " is not what the extension of '" + path + "' says";
        case OutputError::Kind::one_array_only:
            return arrays == 0
                       ? f + " holds one array"
                       : f + " holds one array and this run writes " + std::to_string(arrays);
        case OutputError::Kind::too_many_curves:
            return path + " has " + std::to_string(arrays) + " columns, more than the curves drawn";
        case OutputError::Kind::too_many_tokens:
            return "html: " + std::to_string(arrays) + " tokens, more than a page draws";
        case OutputError::Kind::too_many_weights:
            return "html: weights of shape " + path + ", more than a page holds";
    }
    return "unusable output";
}

// Whether writing f into path would mislabel the file: its extension names another format,
// except .txt, which holds any text format.
bool contradicts_extension(Format f, const std::string& path) {
    const std::optional<Format> named = format_from_extension(path);
    if (!named || *named == f) return false;
    return !(*named == Format::table && is_plain_text(f));
}

}  // namespace

OutputError::OutputError(Kind k, std::string p, Format f, std::size_t n)
    : std::invalid_argument(describe(k, p, f, n)),
      kind(k),
      path(std::move(p)),
      format(f),
      arrays(n) {}

Surroundings current_surroundings() {
    Surroundings s;
    s.stdout_is_terminal = is_terminal(STDOUT_FILENO);
    if (s.stdout_is_terminal) {
        winsize ws{};
        if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
            s.window_columns = ws.ws_col;
            s.window_lines = ws.ws_row;
        }
    }
    for (const char* name : {"COLUMNS", "LINES", "NO_COLOR", "TERM", "COLORTERM"})
        if (const char* v = std::getenv(name)) s.variables[name] = v;
    return s;
}

ColorMode color_mode(bool to_terminal, const Surroundings& around) {
    const std::string* no_color = variable(around, "NO_COLOR");
    const std::string* term = variable(around, "TERM");
    if (!to_terminal || (no_color && !no_color->empty()) || (term && *term == "dumb"))
        return ColorMode::none;
    const std::string* ct = variable(around, "COLORTERM");
    return ct && (*ct == "truecolor" || *ct == "24bit") ? ColorMode::truecolor
                                                        : ColorMode::xterm256;
}

bool is_standard_stream(const std::string& path) {
    return path.empty() || path == "-";
}

bool names_directory(const std::string& path) {
    return !is_standard_stream(path) && (path.back() == '/' || is_directory(path));
}

bool OutputSpec::holds_several_arrays() const {
    return directory || io::holds_several_arrays(format);
}

Format resolve_format(const OutputRequest& request, const Surroundings& around) {
    if (request.format) return *request.format;
    if (names_directory(request.path)) return Format::csv;
    if (!is_standard_stream(request.path)) {
        if (auto f = format_from_extension(request.path)) return *f;
        throw OutputError(OutputError::Kind::unknown_extension, request.path, Format::csv, 0);
    }
    return around.stdout_is_terminal ? Format::table : Format::csv;
}

OutputSpec resolve_output(const OutputRequest& request, const Surroundings& around) {
    OutputSpec spec;
    spec.path = request.path;
    spec.format = resolve_format(request, around);
    spec.dtype = request.dtype;
    spec.directory = names_directory(request.path);
    spec.to_terminal = is_standard_stream(request.path) && around.stdout_is_terminal;

    TextStyle& style = spec.style;
    style.precision = request.precision;
    style.header = request.header;
    style.threads = request.threads;
    style.picture.cmap = request.cmap;
    style.picture.plot = request.plot;
    if (style.picture.plot == Plot::lines && !format_columns(spec.format).picture)
        throw OutputError(OutputError::Kind::lines_needs_svg, spec.path, spec.format, 0);
    style.picture.color = color_mode(spec.to_terminal, around);
    if (request.color) {  // --color always|never: neither the terminal nor NO_COLOR decides
        const std::string* ct = variable(around, "COLORTERM");
        style.picture.color = !*request.color                                ? ColorMode::none
                              : ct && (*ct == "truecolor" || *ct == "24bit") ? ColorMode::truecolor
                                                                             : ColorMode::xterm256;
    }
    if (spec.to_terminal) {
        if (around.window_columns > 0) {
            style.width = around.window_columns;
            style.height = around.window_lines;
        }
    } else {
        if (const std::string* c = variable(around, "COLUMNS"))
            style.width = static_cast<std::size_t>(std::max(20, std::atoi(c->c_str())));
        if (const std::string* l = variable(around, "LINES"))
            style.height = static_cast<std::size_t>(std::max(0, std::atoi(l->c_str())));
    }
    if (spec.to_terminal && is_binary(spec.format))
        throw OutputError(OutputError::Kind::binary_to_terminal, spec.path, spec.format, 0);
    if (spec.directory && !is_directory(spec.path))
        throw OutputError(OutputError::Kind::missing_directory, spec.path, spec.format, 0);
    if (!spec.directory && !is_standard_stream(spec.path)) {
        const auto slash = spec.path.rfind('/');
        const std::string parent = slash == std::string::npos ? "" : spec.path.substr(0, slash);
        if (!parent.empty() && !is_directory(parent))
            throw OutputError(OutputError::Kind::missing_directory, parent, spec.format, 0);
        if (request.format && contradicts_extension(*request.format, spec.path))
            throw OutputError(OutputError::Kind::contradicts_extension, spec.path, spec.format, 0);
    }
    return spec;
}

Output::Output(const OutputSpec& spec, std::size_t arrays)
    : format_(spec.format), dtype_(spec.dtype) {
    if (spec.directory) {
        sink_ = std::make_unique<DirectorySink>(spec.path, spec.format, spec.style);
        return;
    }
    // a page draws its first array and takes views and tables after it (html.hpp)
    if (arrays > 1 && !io::holds_several_arrays(spec.format) && spec.format != Format::html)
        throw OutputError(OutputError::Kind::one_array_only, spec.path, spec.format, arrays);
    file_ = std::make_unique<OutputFile>(spec.path);
    sink_ = make_writer(spec.format, *file_, spec.style);
}

Output::~Output() = default;

void Output::commit() {
    sink_->finish();
    if (file_) file_->commit();
}

}  // namespace attn::io
