#include "io/output_spec.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "support/test_files.hpp"

using attn::io::Format;
using attn::io::OutputError;
using attn::io::OutputRequest;
using attn::io::Surroundings;
using attn::test::file_exists;
using attn::test::scratch_dir;

namespace {

Surroundings terminal(std::size_t columns = 120, std::size_t lines = 40) {
    Surroundings s;
    s.stdout_is_terminal = true;
    s.window_columns = columns;
    s.window_lines = lines;
    return s;
}

OutputRequest to(std::string path) {
    OutputRequest r;
    r.path = std::move(path);
    return r;
}

template <class F>
OutputError::Kind refusal(F f) {
    try {
        f();
    } catch (const OutputError& e) {
        return e.kind;
    }
    FAIL("no OutputError");
    return OutputError::Kind::unknown_extension;
}

}  // namespace

TEST_CASE("output_spec: the format from -f, the extension, a directory, or the terminal") {
    const Surroundings pipe;
    CHECK(attn::io::resolve_output(to("-"), pipe).format == Format::csv);
    CHECK(attn::io::resolve_output(to("-"), terminal()).format == Format::table);
    CHECK(attn::io::resolve_output(to("out.json"), terminal()).format == Format::json);
    CHECK(attn::io::resolve_format(to("x/out.npz"), pipe) == Format::npz);
    OutputRequest named = to("out.txt");
    named.format = Format::md;  // -f names what a .txt holds
    CHECK(attn::io::resolve_output(named, pipe).format == Format::md);
    named.path = "out";  // and what a file without an extension holds
    named.format = Format::npz;
    CHECK(attn::io::resolve_output(named, pipe).format == Format::npz);
    CHECK(attn::io::resolve_format(to("some/dir/"), pipe) == Format::csv);
}

TEST_CASE("output_spec: a directory takes several arrays, a single-array file does not") {
    const std::string dir = scratch_dir();
    const Surroundings pipe;
    const auto spec = attn::io::resolve_output(to(dir + "/"), pipe);
    CHECK(spec.directory);
    CHECK(spec.holds_several_arrays());
    CHECK(attn::io::names_directory(dir));  // an existing directory without its slash
    CHECK_FALSE(attn::io::names_directory("-"));
    CHECK_FALSE(attn::io::names_directory(dir + "/P.csv"));

    const auto csv = attn::io::resolve_output(to(dir + "/P.csv"), pipe);
    CHECK_FALSE(csv.directory);
    CHECK_FALSE(csv.holds_several_arrays());
    CHECK(attn::io::resolve_output(to(dir + "/P.npz"), pipe).holds_several_arrays());
    const auto kind = refusal([&] { attn::io::Output out(csv, 2); });
    CHECK(kind == OutputError::Kind::one_array_only);
    CHECK_FALSE(file_exists(dir + "/P.csv"));  // refused before anything was opened
}

TEST_CASE("output_spec: refusals, each with its kind") {
    const Surroundings pipe;
    CHECK(refusal([&] { attn::io::resolve_output(to("P.jpg"), pipe); }) ==
          OutputError::Kind::unknown_extension);
    OutputRequest lines = to("P.csv");
    lines.plot = attn::io::Plot::lines;
    CHECK(refusal([&] { attn::io::resolve_output(lines, pipe); }) ==
          OutputError::Kind::lines_needs_svg);
    lines.path = "P.svg";
    CHECK(attn::io::resolve_output(lines, pipe).style.picture.plot == attn::io::Plot::lines);
    OutputRequest npy = to("-");
    npy.format = Format::npy;
    CHECK(refusal([&] { attn::io::resolve_output(npy, terminal()); }) ==
          OutputError::Kind::binary_to_terminal);
    CHECK(attn::io::resolve_output(npy, pipe).format == Format::npy);
    std::string missing = scratch_dir();
    missing.append("/no/such/dir/");
    CHECK(refusal([&] { attn::io::resolve_output(to(missing), pipe); }) ==
          OutputError::Kind::missing_directory);
    // A file in a missing directory is refused before anything is written, as DIR/ is.
    CHECK(refusal([&] { attn::io::resolve_output(to(missing + "P.csv"), pipe); }) ==
          OutputError::Kind::missing_directory);
    // -f contradicting the extension: npz into x.csv, csv into x.npy, svg into x.txt.
    for (const auto& [format, path] : {std::pair{Format::npz, "x.csv"},
                                       {Format::csv, "x.npy"},
                                       {Format::svg, "x.txt"},
                                       {Format::md, "x.json"}}) {
        OutputRequest r = to(path);
        r.format = format;
        CHECK(refusal([&] { attn::io::resolve_output(r, pipe); }) ==
              OutputError::Kind::contradicts_extension);
    }
}

TEST_CASE("output_spec: the terminal's size and colours, COLUMNS and LINES for a pipe") {
    const auto on_terminal = attn::io::resolve_output(to("-"), terminal(132, 50));
    CHECK(on_terminal.to_terminal);
    CHECK(on_terminal.style.width == 132);
    CHECK(on_terminal.style.height == 50);
    CHECK(on_terminal.style.picture.color == attn::io::ColorMode::xterm256);

    Surroundings pipe;
    pipe.variables = {{"COLUMNS", "10"}, {"LINES", "7"}};
    const auto piped = attn::io::resolve_output(to("-"), pipe);
    CHECK_FALSE(piped.to_terminal);
    CHECK(piped.style.width == 20);  // at least 20
    CHECK(piped.style.height == 7);
    CHECK(piped.style.picture.color == attn::io::ColorMode::none);

    Surroundings s = terminal();
    s.variables = {{"COLORTERM", "truecolor"}};
    CHECK(attn::io::color_mode(true, s) == attn::io::ColorMode::truecolor);
    s.variables = {{"COLORTERM", "truecolor"}, {"NO_COLOR", "1"}};
    CHECK(attn::io::color_mode(true, s) == attn::io::ColorMode::none);
    s.variables = {{"TERM", "dumb"}};
    CHECK(attn::io::color_mode(true, s) == attn::io::ColorMode::none);
    s.variables = {{"NO_COLOR", ""}};  // set but empty: colours stay
    CHECK(attn::io::color_mode(true, s) == attn::io::ColorMode::xterm256);
}

TEST_CASE("output_spec: the request's style reaches the writers") {
    OutputRequest r = to("-");
    r.precision = 6;
    r.header = false;
    r.threads = 3;
    r.dtype = attn::io::Dtype::float64;
    const auto spec = attn::io::resolve_output(r, Surroundings{});
    CHECK(spec.dtype == attn::io::Dtype::float64);
    CHECK(spec.style.precision == 6);
    CHECK_FALSE(spec.style.header);
    CHECK(spec.style.threads == 3);
    CHECK(spec.path == "-");
    CHECK(attn::io::is_standard_stream("-"));
    CHECK(attn::io::is_standard_stream(""));
    CHECK_FALSE(attn::io::is_standard_stream("./-"));
}
