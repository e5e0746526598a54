#include "cli/complexity_arrays.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

#include "cli/errors.hpp"

namespace attn::cli {

namespace {

using Column = io::TableColumn;

Column text_column(std::string name, std::function<std::string(std::size_t)> text) {
    return {std::move(name), false, std::move(text), {}};
}

Column integer_column(std::string name, std::function<u64(std::size_t)> get) {
    return {std::move(name), true, [get](std::size_t r) { return std::to_string(get(r)); },
            [get](std::size_t r) { return static_cast<double>(get(r)); }};
}

Column real_column(std::string name, const RealFormat& format,
                   std::function<double(std::size_t)> get) {
    return {std::move(name), true, [format, get](std::size_t r) { return format(get(r)); }, get};
}

// Exponent of the swept size in the leading term of each row's cost (n -> infinity).
int asymptotic_exponent(Layer layer, u64 LayerSizes::*variable, bool with_projections) {
    const bool attention =
        layer == Layer::self_attention || layer == Layer::restricted_self_attention;
    const bool convolution = layer == Layer::convolution || layer == Layer::dilated_convolution;
    if (variable == &LayerSizes::n) return layer == Layer::self_attention ? 2 : 1;
    if (variable == &LayerSizes::d) return attention && !with_projections ? 1 : 2;
    if (variable == &LayerSizes::k) return convolution ? 1 : 0;
    return layer == Layer::restricted_self_attention ? 1 : 0;  // r
}

}  // namespace

std::string sizes_text(const LayerSizes& s) {
    return fmt::format("n = {}, d = {}, k = {}, r = {}", s.n, s.d, s.k, s.r);
}

std::string symbolic_complexity(const SymbolicRow& row, bool with_projections) {
    if (with_projections && row.layer == Layer::self_attention) return "O(n^2 d + n d^2)";
    if (with_projections && row.layer == Layer::restricted_self_attention)
        return "O(r n d + n d^2)";
    return std::string(row.complexity);
}

io::MatrixStream symbolic_stream() {
    const auto& symbolic = symbolic_table();
    std::vector<Column> columns{
        text_column("layer",
                    [&](std::size_t r) { return std::string(layer_name(symbolic[r].layer)); }),
        text_column("complexity",
                    [&](std::size_t r) { return std::string(symbolic[r].complexity); }),
        text_column("sequential_operations",
                    [&](std::size_t r) { return std::string(symbolic[r].sequential_operations); }),
        text_column("maximum_path_length",
                    [&](std::size_t r) { return std::string(symbolic[r].maximum_path_length); })};
    return io::table_stream("complexity",
                            "cost of one layer: n tokens of width d, kernel k, neighborhood r",
                            symbolic.size(), std::move(columns), false);
}

io::MatrixStream counts_stream(const std::vector<Row>& rows, const RealFormat& real, bool measured,
                               std::string title, bool values) {
    std::vector<Column> columns{
        text_column("layer",
                    [&](std::size_t r) { return std::string(layer_name(rows[r].counts.layer)); }),
        text_column("complexity", [&](std::size_t r) { return rows[r].complexity; }),
        text_column(
            "sequential_operations",
            [&](std::size_t r) { return std::string(rows[r].symbolic->sequential_operations); }),
        text_column(
            "maximum_path_length",
            [&](std::size_t r) { return std::string(rows[r].symbolic->maximum_path_length); }),
        integer_column("n", [&](std::size_t r) { return rows[r].counts.sizes.n; }),
        integer_column("d", [&](std::size_t r) { return rows[r].counts.sizes.d; }),
        integer_column("k", [&](std::size_t r) { return rows[r].counts.sizes.k; }),
        integer_column("r", [&](std::size_t r) { return rows[r].counts.sizes.r; }),
        integer_column("multiply_adds",
                       [&](std::size_t r) { return rows[r].counts.multiply_adds; }),
        integer_column("sequential_steps",
                       [&](std::size_t r) { return rows[r].counts.sequential_steps; }),
        {"path_length", true,
         [&](std::size_t r) {
             const auto& p = rows[r].counts.path_length;
             return p ? std::to_string(*p) : std::string("inf");
         },
         [&](std::size_t r) {
             const auto& p = rows[r].counts.path_length;
             return p ? static_cast<double>(*p) : std::numeric_limits<double>::infinity();
         }},
        integer_column("activation_floats",
                       [&](std::size_t r) { return rows[r].counts.activation_floats; }),
    };
    if (measured) {
        columns.push_back(
            real_column("seconds", real, [&](std::size_t r) { return rows[r].measured.seconds; }));
        columns.push_back(
            real_column("gflops", real, [&](std::size_t r) { return rows[r].measured.gflops; }));
        columns.push_back(
            text_column("kernel", [&](std::size_t r) { return rows[r].measured.kernel; }));
    }
    return io::table_stream("complexity", std::move(title), rows.size(), std::move(columns),
                            values);
}

io::MatrixStream curves_stream(const std::vector<Row>& rows, const std::vector<LayerSizes>& points,
                               SizeVariable variable, u64 LayerSizes::*swept, std::string title) {
    io::ArrayInfo info;
    info.name = "complexity";
    info.title = std::move(title);
    info.dtype = io::Dtype::float64;
    info.column_labels.emplace_back(size_variable_name(variable));
    for (Layer layer : kLayers) info.column_labels.emplace_back(layer_name(layer));
    info.shape = {points.size(), info.column_labels.size()};
    info.x_column = 0;
    info.log_x = info.log_y = true;
    info.value_axis = "multiply-adds";
    // Without the projections, 2 n^2 d (self-attention) = 2 n d^2 (recurrent) at n = d.
    const LayerSizes& s = points.front();
    if (!s.with_projections && variable == SizeVariable::n)
        info.x_markers.emplace_back(
            fmt::format("n = d = {}: self-attention costlier than recurrent", s.d),
            static_cast<double>(s.d));
    if (!s.with_projections && variable == SizeVariable::d)
        info.x_markers.emplace_back(fmt::format("d = n = {}: recurrent costlier", s.n),
                                    static_cast<double>(s.n));
    const std::size_t L = kLayers.size();
    auto fill = [&rows, &points, swept, L](std::size_t p, double* out) {
        out[0] = static_cast<double>(points[p].*swept);
        for (std::size_t l = 0; l < L; ++l)
            out[1 + l] = static_cast<double>(rows[p * L + l].counts.multiply_adds);
    };
    const std::size_t width = info.columns();
    return {std::move(info), io::row_by_row(fill, width)};
}

std::vector<Crossover> crossovers(const std::vector<LayerSizes>& points) {
    std::vector<LayerSizes> sizes;  // distinct (d, k), in order
    for (const LayerSizes& s : points)
        if (std::none_of(sizes.begin(), sizes.end(),
                         [&](const LayerSizes& c) { return c.d == s.d && c.k == s.k; }))
            sizes.push_back(s);
    // Rows: recurrent then convolution, for each distinct (d, k).
    std::vector<Crossover> cross;
    for (const LayerSizes& s : sizes)
        for (Layer versus : {Layer::recurrent, Layer::convolution})
            cross.push_back({versus, s, naming_option("--dim/--kernel", [&] {
                                 return attention_crossover(versus, s.d, s.k, s.with_projections);
                             })});
    return cross;
}

io::MatrixStream crossovers_stream(const std::vector<Crossover>& cross, bool values) {
    auto condition = [&](std::size_t r) -> std::string {
        const Crossover& c = cross[r];
        if (c.n == 1) return "every n";
        if (c.versus == Layer::recurrent) return "n > d";
        return c.sizes.with_projections ? "n > (k - 4) d / 2" : "n > k d / 2";
    };
    std::vector<Column> cc{
        text_column("versus",
                    [&](std::size_t r) { return std::string(layer_name(cross[r].versus)); }),
        text_column("condition", condition),
        integer_column("d", [&](std::size_t r) { return cross[r].sizes.d; }),
        integer_column("k", [&](std::size_t r) { return cross[r].sizes.k; }),
        integer_column("crossover_n", [&](std::size_t r) { return cross[r].n; }),
    };
    return io::table_stream(
        "crossovers",
        "self-attention costs more multiply-adds than the other layer from n = crossover_n on",
        cross.size(), std::move(cc), values);
}

std::vector<Exponent> exponents(const std::vector<Row>& rows, const std::vector<LayerSizes>& points,
                                u64 LayerSizes::*swept, bool with_projections) {
    std::vector<double> xs;
    for (const LayerSizes& s : points) xs.push_back(static_cast<double>(s.*swept));
    auto fit = [&](const std::vector<double>& ys) {
        try {
            return fit_exponent(xs, ys);
        } catch (const std::invalid_argument&) {  // equal sizes, a zero time
            return std::numeric_limits<double>::quiet_NaN();
        }
    };
    std::vector<Exponent> exps;
    for (std::size_t l = 0; l < kLayers.size(); ++l) {
        std::vector<double> counts, seconds;
        for (std::size_t p = 0; p < points.size(); ++p) {
            const Row& row = rows[p * kLayers.size() + l];
            counts.push_back(static_cast<double>(row.counts.multiply_adds));
            seconds.push_back(row.measured.seconds);
        }
        exps.push_back({kLayers[l], asymptotic_exponent(kLayers[l], swept, with_projections),
                        fit(counts), fit(seconds)});
    }
    return exps;
}

io::MatrixStream exponents_stream(const std::vector<Exponent>& exps, const std::string& variable,
                                  const RealFormat& real, bool values) {
    std::vector<Column> ec{
        text_column("layer", [&](std::size_t r) { return std::string(layer_name(exps[r].layer)); }),
        text_column("variable", [variable](std::size_t) { return variable; }),
        integer_column("asymptotic_exponent",
                       [&](std::size_t r) { return static_cast<u64>(exps[r].asymptotic); }),
        real_column("count_exponent", real, [&](std::size_t r) { return exps[r].counts; }),
        real_column("measured_exponent", real, [&](std::size_t r) { return exps[r].measured; }),
    };
    return io::table_stream(
        "exponents",
        fmt::format("exponent of {}: log-log slope of the counts and of the seconds", variable),
        exps.size(), std::move(ec), values);
}

}  // namespace attn::cli
