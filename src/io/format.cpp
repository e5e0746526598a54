#include "io/format.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "io/csv.hpp"
#include "io/heatmap.hpp"
#include "io/html.hpp"
#include "io/json.hpp"
#include "io/markdown.hpp"
#include "io/npy.hpp"
#include "io/npz.hpp"
#include "io/png.hpp"
#include "io/svg.hpp"
#include "io/table.hpp"

namespace attn::io {

namespace {

struct FormatEntry {
    Format format;
    std::string_view name;
    std::string_view extension;
};

constexpr std::array kFormats{
    FormatEntry{Format::csv, "csv", ".csv"},         FormatEntry{Format::tsv, "tsv", ".tsv"},
    FormatEntry{Format::table, "table", ".txt"},     FormatEntry{Format::npy, "npy", ".npy"},
    FormatEntry{Format::npz, "npz", ".npz"},         FormatEntry{Format::json, "json", ".json"},
    FormatEntry{Format::svg, "svg", ".svg"},         FormatEntry{Format::png, "png", ".png"},
    FormatEntry{Format::heatmap, "heatmap", ".txt"}, FormatEntry{Format::md, "md", ".md"},
    FormatEntry{Format::html, "html", ".html"},
};

}  // namespace

std::optional<Format> parse_format(std::string_view name) {
    for (const auto& e : kFormats)
        if (e.name == name) return e.format;
    return std::nullopt;
}

std::string_view format_name(Format f) {
    for (const auto& e : kFormats)
        if (e.format == f) return e.name;
    return "?";
}

std::vector<std::string> format_name_list() {
    std::vector<std::string> names;
    for (const auto& e : kFormats) names.emplace_back(e.name);
    return names;
}

std::string format_names() {
    std::string names;
    for (const auto& e : kFormats) {
        if (!names.empty()) names += '|';
        names += e.name;
    }
    return names;
}

std::optional<Format> format_from_extension(std::string_view path) {
    const auto dot = path.rfind('.');
    const auto slash = path.rfind('/');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash))
        return std::nullopt;
    std::string ext(path.substr(dot));  // ".CSV" is ".csv"
    for (char& c : ext)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    for (const auto& e : kFormats)
        if (e.extension == ext && e.format != Format::heatmap) return e.format;
    return std::nullopt;
}

std::string_view format_extension(Format f) {
    for (const auto& e : kFormats)
        if (e.format == f) return e.extension;
    return "";
}

bool is_binary(Format f) {
    return f == Format::npy || f == Format::npz || f == Format::png;
}

bool is_plain_text(Format f) {
    return !is_binary(f) && f != Format::svg;
}

bool holds_several_arrays(Format f) {
    return f == Format::npz || f == Format::json || f == Format::table || f == Format::heatmap ||
           f == Format::md;
}

std::unique_ptr<ArraySink> make_writer(Format f, OutputFile& out, const TextStyle& style) {
    switch (f) {
        case Format::csv:
            return std::make_unique<CsvWriter>(out, ',', style);
        case Format::tsv:
            return std::make_unique<CsvWriter>(out, '\t', style);
        case Format::table:
            return std::make_unique<TableWriter>(out, style);
        case Format::json:
            return std::make_unique<JsonWriter>(out, style);
        case Format::md:
            return std::make_unique<MarkdownWriter>(out, style);
        case Format::npy:
            return std::make_unique<NpyWriter>(out);
        case Format::npz:
            return std::make_unique<NpzWriter>(out);
        case Format::svg:
            return std::make_unique<SvgWriter>(out, style.picture);
        case Format::png:
            return std::make_unique<PngWriter>(out, style.picture);
        case Format::heatmap:
            return std::make_unique<HeatmapWriter>(out, style);
        case Format::html:
            return std::make_unique<HtmlWriter>(out, style);
    }
    throw std::invalid_argument("format " + std::string(format_name(f)) +
                                " is not available for this output");
}

}  // namespace attn::io
