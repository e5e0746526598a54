// Drawing helpers shared by the svg heatmap and lines plots (internal to src/io/svg*.cpp).
#pragma once

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstddef>
#include <string>

#include "io/svg.hpp"

namespace attn::io::svg_draw {

constexpr double kFontSize = 11;
constexpr double kCharWidth = 6.5;  // an average glyph at kFontSize, for layout estimates
constexpr double kTitleHeight = 30;

// Coordinates with at most 2 decimals and no trailing zeros: "12", "12.5", "12.25".
inline std::string num(double x) {
    std::string s = fmt::format("{:.2f}", x);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    if (s == "-0") s = "0";
    return s;
}

// A value on a colour bar or an axis: 4 significant digits, "-0" as "0".
inline std::string value_label(double v) {
    std::string s = fmt::format("{:.4g}", v);
    return s == "-0" ? "0" : s;
}

// --font-scale: every text's size times font_scale() while one picture is laid out and
// drawn (set by a FontScale for that time; 1 otherwise).
inline double& font_scale_setting() {
    static thread_local double scale = 1;
    return scale;
}
inline double font_scale() {
    return font_scale_setting();
}
struct FontScale {
    explicit FontScale(double s) { font_scale_setting() = s; }
    ~FontScale() { font_scale_setting() = 1; }
    FontScale(const FontScale&) = delete;
    FontScale& operator=(const FontScale&) = delete;
};

inline double text_width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return double(n) * kCharWidth * font_scale();
}

// The smallest of 1, 2, 5, 10, 20, 50, ... that is >= need.
inline std::size_t nice_step(double need) {
    for (std::size_t p = 1;; p *= 10)
        for (std::size_t m : {1, 2, 5})
            if (double(m * p) >= need) return m * p;
}

// A "nice" real step near span / target: 1, 2, 2.5 or 5 times a power of ten.
inline double nice_real_step(double span, int target) {
    const double raw = span / target;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

// An integer, possibly negative: "-12".
inline bool is_number(const std::string& s) {
    if (s.empty()) return false;
    for (std::size_t k = 0; k < s.size(); ++k)
        if (!(std::isdigit(static_cast<unsigned char>(s[k])) || (k == 0 && s[k] == '-')))
            return false;
    return true;
}

inline void text(std::string& svg, double x, double y, const std::string& s, const char* anchor,
                 const std::string& extra = "") {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", num(x), num(y),
                       anchor, extra, xml_escape(s));
}

// The xml prologue, the <svg> element with its <title>, a white background and the title
// drawn at the top.
inline std::string header(double width, double height, const std::string& title) {
    std::string svg = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Verdana, sans-serif\" "
        "font-size=\"{2}\">\n"
        "<title>{3}</title>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
        num(width), num(height), num(kFontSize * font_scale()), xml_escape(title));
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{}\">{}</text>\n",
        num(width / 2), num(20 * font_scale()), num(13 * font_scale()), xml_escape(title));
    return svg;
}

// The row axis's name: info.row_axis, else "Row (<label names>)".
inline std::string row_axis_name(const ArrayInfo& info) {
    if (!info.row_axis.empty()) return info.row_axis;
    std::string names;
    for (const auto& l : info.labels) names += (names.empty() ? "" : ", ") + l.name;
    return names.empty() ? "Row" : "Row (" + names + ")";
}

}  // namespace attn::io::svg_draw
