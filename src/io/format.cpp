#include "io/format.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "io/csv.hpp"
#include "io/format_columns.hpp"
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

// A format's row: its name, its files' extension, and what it is (format_columns.hpp).
struct FormatEntry {
    Format format;
    std::string_view name;
    std::string_view extension;
    FormatColumns is;
};

// clang-format off
constexpr std::array kFormats{
    //          format            name       extension binary several picture numpy  page   aligned  drawn
    FormatEntry{Format::csv,     "csv",     ".csv",   {false, false,  false,  false, false, false, false}},
    FormatEntry{Format::tsv,     "tsv",     ".tsv",   {false, false,  false,  false, false, false, false}},
    FormatEntry{Format::table,   "table",   ".txt",   {false, true,   false,  false, false, true,  false}},
    FormatEntry{Format::npy,     "npy",     ".npy",   {true,  false,  false,  true,  false, false, false}},
    FormatEntry{Format::npz,     "npz",     ".npz",   {true,  true,   false,  true,  false, false, false}},
    FormatEntry{Format::json,    "json",    ".json",  {false, true,   false,  false, false, false, false}},
    FormatEntry{Format::svg,     "svg",     ".svg",   {false, false,  true,   false, false, false, true }},
    FormatEntry{Format::png,     "png",     ".png",   {true,  false,  true,   false, false, false, true }},
    FormatEntry{Format::heatmap, "heatmap", ".txt",   {false, true,   false,  false, false, false, true }},
    FormatEntry{Format::md,      "md",      ".md",    {false, true,   false,  false, false, false, false}},
    FormatEntry{Format::html,    "html",    ".html",  {false, false,  false,  false, true,  false, false}},
};
// clang-format on

const FormatEntry& entry(Format f) {
    for (const auto& e : kFormats)
        if (e.format == f) return e;
    throw std::invalid_argument("format without a row in kFormats");
}

}  // namespace

std::optional<Format> parse_format(std::string_view name) {
    for (const auto& e : kFormats)
        if (e.name == name) return e.format;
    return std::nullopt;
}

std::string_view format_name(Format f) {
    return entry(f).name;
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
    return entry(f).extension;
}

const FormatColumns& format_columns(Format f) {
    return entry(f).is;
}

bool is_binary(Format f) {
    return entry(f).is.binary;
}

bool is_plain_text(Format f) {
    return !entry(f).is.binary && !entry(f).is.picture;
}

bool holds_several_arrays(Format f) {
    return entry(f).is.several;
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
