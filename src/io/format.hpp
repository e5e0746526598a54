// Output formats: their names, inference from a file name, and the writer for each.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/array_sink.hpp"
#include "io/colormap.hpp"
#include "io/output_file.hpp"

namespace attn::io {

enum class Format { csv, tsv, table, npy, npz, json, svg, png, heatmap, md, html };

/// "csv" -> Format::csv, ...; nullopt for an unknown name.
std::optional<Format> parse_format(std::string_view name);
std::string_view format_name(Format f);
/// The names users may type, in one place: {"csv", "tsv", ...}, and joined for messages:
/// "csv|tsv|table|...".
std::vector<std::string> format_name_list();
std::string format_names();
/// By extension: .csv .tsv .txt(table) .npy .npz .json .svg .png .md .html; nullopt otherwise.
std::optional<Format> format_from_extension(std::string_view path);
/// The extension a format's files get when written into a directory (-o DIR/).
std::string_view format_extension(Format f);
/// Binary formats are refused on a terminal.
bool is_binary(Format f);
/// Text meant to be read as text (csv tsv table json md heatmap): what a .txt file may hold.
bool is_plain_text(Format f);
/// Formats whose single output holds several arrays (npz, json, table, heatmap, md).
bool holds_several_arrays(Format f);

/// What the picture formats (svg, png, heatmap) draw.
///   plot:  heatmap (rows down, columns across) or lines (one curve per column over the
///          rows; svg only).
///   cmap:  nullopt = default_colormap(min, max) of the data (rdbu for both signs, else blues).
///   color: heatmap's escapes: 24-bit, xterm 256 colours, or none (a grey character ramp).
///   annotate: each heatmap cell's value written in it with two decimals: auto_ when every
///          panel has at most 20 x 20 cells (svg), never, always.
///   title: replaces the array's title and shape (svg <title>, the caption above, the
///          terminal heatmap's first line).
enum class Plot { heatmap, lines };
enum class ColorMode { truecolor, xterm256, none };
enum class Annotate { auto_, never, always };
struct PictureStyle {
    std::optional<Colormap> cmap;
    Plot plot = Plot::heatmap;
    ColorMode color = ColorMode::none;
    Annotate annotate = Annotate::auto_;
    std::optional<std::string> title;
    /// svg and png: the picture's width and height (--size WxH), its drawing scaled to fit
    /// (aspect kept, centred); nullopt = the size the layout needs. PNG: pixels.
    std::optional<std::pair<int, int>> size;
    /// svg, png and heatmap: the colour scale's ends (--range LO:HI), over the array's own
    /// value_range and the data's range; values beyond are drawn in the end colours.
    std::optional<std::pair<double, double>> range;
    /// svg and png: every text's size times this (the layout makes room for it).
    double font_scale = 1;
    /// --plot lines: which of the curves (the columns drawn as curves, in order) are drawn,
    /// given their number; empty = all. Throws std::invalid_argument for a slice out of range.
    std::function<std::vector<std::size_t>(std::size_t curves)> curves;
};

/// How text formats print numbers and what the table (and heatmap) fits into.
struct TextStyle {
    std::optional<int> precision;  // significant digits; nullopt = shortest round-trip
    bool header = true;            // csv/tsv header row
    std::size_t width = 80;        // table: characters per line
    std::size_t height = 0;        // table: lines per array, 0 = no limit
    std::size_t threads = 1;       // text formatting threads
    PictureStyle picture;          // svg and heatmap
};

/// The streaming writer for f onto out.
std::unique_ptr<ArraySink> make_writer(Format f, OutputFile& out, const TextStyle& style);

}  // namespace attn::io
