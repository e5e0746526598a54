#include "io/svg_points.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "io/svg_draw.hpp"

namespace attn::io {

using namespace svg_draw;

namespace {

// The plot area, in px: x from kLeft to kLeft + kWidth, y from kTop + kHeight (the axis's
// lowest value) up to kTop.
constexpr double kLeft = 70, kTop = 50, kWidth = 460, kHeight = 320;
// matplotlib's tab10: one colour per head in the row curves.
constexpr std::array<const char*, 10> kTab10{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                             "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr const char* kPlain = "#1f77b4";
constexpr const char* kMarked = "#d62728";

std::size_t column(const ArrayInfo& info, const std::string& name) {
    const auto at = std::find(info.column_labels.begin(), info.column_labels.end(), name);
    if (at == info.column_labels.end())
        throw std::invalid_argument(
            fmt::format("svg: {} has no column '{}' to draw", info.name, name));
    return static_cast<std::size_t>(at - info.column_labels.begin());
}

// An axis from lo to hi extended to nice ticks (lo = 0 kept when the data are >= 0).
struct Axis {
    double lo = 0, hi = 1, step = 1;
};
Axis axis(double lo, double hi) {
    if (!(hi > lo)) hi = lo + 1;
    const double step = nice_real_step(hi - lo, 5);
    return {std::floor(lo / step) * step, std::ceil(hi / step) * step, step};
}

// The frame, ticks, tick labels and axis names of a plot with axes a (x) and b (y); the axes'
// mapping in <desc>.
std::string frame(const Axis& a, const Axis& b, const std::string& x_name,
                  const std::string& y_name) {
    auto px = [&](double x) { return kLeft + (x - a.lo) / (a.hi - a.lo) * kWidth; };
    auto py = [&](double y) { return kTop + kHeight - (y - b.lo) / (b.hi - b.lo) * kHeight; };
    std::string svg = fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#000000\" "
        "stroke-width=\"0.8\"/>\n<g id=\"ticks\" stroke=\"#000000\" stroke-width=\"0.8\">\n",
        num(kLeft), num(kTop), num(kWidth), num(kHeight));
    std::string labels;
    for (double x = a.lo; x <= a.hi + a.step / 1e6; x += a.step) {
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", num(px(x)),
                           num(kTop + kHeight), num(kTop + kHeight + 4));
        text(labels, px(x), kTop + kHeight + 16, value_label(std::fabs(x) < 1e-12 ? 0 : x),
             "middle");
    }
    for (double y = b.lo; y <= b.hi + b.step / 1e6; y += b.step) {
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", num(kLeft - 4),
                           num(py(y)), num(kLeft));
        text(labels, kLeft - 6, py(y) + 4, value_label(std::fabs(y) < 1e-12 ? 0 : y), "end");
    }
    svg += "</g>\n" + labels;
    text(svg, kLeft + kWidth / 2, kTop + kHeight + 36, x_name, "middle");
    const double x = 18, y = kTop + kHeight / 2;
    text(svg, x, y, y_name, "middle",
         fmt::format(" transform=\"rotate(-90 {} {})\"", num(x), num(y)));
    svg += fmt::format("<desc>x [{}, {}] -&gt; [{}, {}], y [{}, {}] -&gt; [{}, {}]</desc>\n",
                       value_label(a.lo), value_label(a.hi), num(kLeft), num(kLeft + kWidth),
                       value_label(b.lo), value_label(b.hi), num(kTop + kHeight), num(kTop));
    return svg;
}

}  // namespace

std::string svg_scatter(const ArrayInfo& info, const std::vector<double>& values,
                        const std::string& title) {
    const ArrayInfo::Scatter& s = *info.scatter;
    const std::size_t C = info.columns(), R = values.size() / C;
    const std::size_t xc = column(info, s.x), yc = column(info, s.y);
    const std::size_t mc = s.mark.empty() ? C : column(info, s.mark);
    std::vector<std::size_t> lc;
    for (const auto& l : s.label) lc.push_back(column(info, l));
    double xhi = 0, yhi = 0;
    for (std::size_t r = 0; r < R; ++r) {
        if (std::isfinite(values[r * C + xc])) xhi = std::max(xhi, values[r * C + xc]);
        if (std::isfinite(values[r * C + yc])) yhi = std::max(yhi, values[r * C + yc]);
    }
    const Axis a = axis(0, xhi), b = axis(0, yhi);
    auto px = [&](double x) { return kLeft + (x - a.lo) / (a.hi - a.lo) * kWidth; };
    auto py = [&](double y) { return kTop + kHeight - (y - b.lo) / (b.hi - b.lo) * kHeight; };
    const double width = kLeft + kWidth + 230;
    std::string svg =
        header(std::max(width, text_width(title) * 13 / 11 + 20), kTop + kHeight + 56, title);
    svg += frame(a, b, s.x_axis, s.y_axis);
    // Every point's label when there are few (GPT-2 small: 144 heads), else the marked ones.
    const bool all_labels = R <= 64;
    std::string points = "<g id=\"points\">\n",
                labels = "<g id=\"point-labels\" font-size=\"9\">\n";
    std::size_t marked = 0;
    for (std::size_t r = 0; r < R; ++r) {
        const double* v = &values[r * C];
        if (!std::isfinite(v[xc]) || !std::isfinite(v[yc])) continue;
        const bool mark = mc < C && v[mc] > s.above;
        marked += mark;
        std::string name;
        for (const std::size_t k : lc) name += fmt::format("{}{}", name.empty() ? "" : ".", v[k]);
        points += fmt::format(
            "<circle id=\"point-{}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" "
            "fill-opacity=\"0.8\"><title>{}</title></circle>\n",
            r, num(px(v[xc])), num(py(v[yc])), mark ? 4.5 : 3.5, mark ? kMarked : kPlain,
            xml_escape(name));
        if (all_labels || mark)
            text(labels, px(v[xc]) + 6, py(v[yc]) - 4, name, "start",
                 mark ? fmt::format(" fill=\"{}\"", kMarked) : "");
    }
    svg += points + "</g>\n" + labels + "</g>\n";
    // The legend: what a label says, and the marked points.
    const double lx = kLeft + kWidth + 20;
    std::string label_names;
    for (const auto& l : s.label)
        label_names += fmt::format("{}{}", label_names.empty() ? "" : ".", l);
    svg += "<g id=\"legend\">\n";
    svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"/>\n", num(lx + 4),
                       num(kTop + 6), kPlain);
    text(svg, lx + 14, kTop + 10, fmt::format("one point per row ({})", label_names), "start");
    if (mc < C) {
        svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4.5\" fill=\"{}\"/>\n", num(lx + 4),
                           num(kTop + 26), kMarked);
        text(svg, lx + 14, kTop + 30, fmt::format("{} ({})", s.mark_legend, marked), "start");
    }
    svg += "</g>\n</svg>\n";
    return svg;
}

std::string svg_row_curves(const ArrayInfo& info, const std::vector<double>& values,
                           const std::string& title) {
    const std::size_t C = info.columns(), R = values.size() / C;
    std::vector<double> xs(C);
    for (std::size_t j = 0; j < C; ++j)
        xs[j] = j < info.column_labels.size() ? std::strtod(info.column_labels[j].c_str(), nullptr)
                                              : double(j);
    double yhi = 0;
    for (const double v : values)
        if (std::isfinite(v)) yhi = std::max(yhi, v);
    const Axis a = axis(*std::min_element(xs.begin(), xs.end()),
                        *std::max_element(xs.begin(), xs.end())),
               b = axis(0, yhi);
    auto px = [&](double x) { return kLeft + (x - a.lo) / (a.hi - a.lo) * kWidth; };
    auto py = [&](double y) { return kTop + kHeight - (y - b.lo) / (b.hi - b.lo) * kHeight; };
    // A row's name: its label fields, "layer 1, head 3"; its colour: the last field's value
    // (the head) in tab10; the layers dashed alike beyond the first.
    auto name = [&](std::size_t r) {
        std::string s;
        for (const auto& l : info.labels)
            s += fmt::format("{}{} {}", s.empty() ? "" : ", ", l.name, l.value(r));
        return s.empty() ? fmt::format("row {}", r) : s;
    };
    auto index = [&](std::size_t r, std::size_t field) {
        return field < info.labels.size()
                   ? std::strtoul(info.labels[field].value(r).c_str(), nullptr, 10)
                   : r;
    };
    const std::size_t fields = info.labels.size();
    const bool legend = R <= 24;
    const double width = kLeft + kWidth + (legend ? 170 : 30);
    std::string svg = header(std::max(width, text_width(title) * 13 / 11 + 20),
                             std::max(kTop + kHeight + 56, kTop + 16.0 * double(R) + 20), title);
    svg += frame(a, b, info.column_axis.empty() ? "column" : info.column_axis,
                 info.value_axis.empty() ? "value" : info.value_axis);
    svg += "<g id=\"curves\" fill=\"none\" stroke-width=\"1.5\">\n";
    std::string keys = "<g id=\"legend\">\n";
    for (std::size_t r = 0; r < R; ++r) {
        const char* color = kTab10[index(r, fields ? fields - 1 : 0) % kTab10.size()];
        const bool dashed = fields > 1 && index(r, 0) % 2 == 1;
        std::string points;
        for (std::size_t j = 0; j < C; ++j)
            if (std::isfinite(values[r * C + j]))
                points += fmt::format("{}{},{}", points.empty() ? "" : " ", num(px(xs[j])),
                                      num(py(values[r * C + j])));
        svg += fmt::format(
            "<polyline id=\"curve-{}\" points=\"{}\" "
            "stroke=\"{}\"{}><title>{}</title></polyline>\n",
            r, points, color, dashed ? " stroke-dasharray=\"5,3\"" : "", xml_escape(name(r)));
        if (!legend) continue;
        const double y = kTop + 6 + 16 * double(r);
        keys += fmt::format(
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" "
            "stroke-width=\"1.5\"{4}/>\n",
            num(kLeft + kWidth + 16), num(y), num(kLeft + kWidth + 40), color,
            dashed ? " stroke-dasharray=\"5,3\"" : "");
        text(keys, kLeft + kWidth + 46, y + 4, name(r), "start");
    }
    svg += "</g>\n" + keys + "</g>\n</svg>\n";
    return svg;
}

}  // namespace attn::io
