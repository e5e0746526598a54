// attn complexity's arrays: the symbolic table, the counts per layer and size (measured
// too), the crossover lengths and the fitted exponents, each an io::MatrixStream.
//
// Every column is text, numbers included: counts are 64-bit integers that a double would
// round above 2^53, so they are printed exactly and marked numeric (json writes them
// unquoted, tables right-align them). npy/npz cannot hold text: there (values = true) the
// numbers are float64 values and the text columns are left out.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/complexity.hpp"
#include "attn/complexity_timing.hpp"
#include "cli/arguments.hpp"
#include "io/format_columns.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

using u64 = std::uint64_t;

// Real numbers (seconds, GFLOP/s, exponents): shortest round-trip, or --precision significant
// digits; 4 significant digits in the table unless --precision says otherwise.
class RealFormat {
  public:
    RealFormat(io::Format format, int precision) {
        if (precision > 0)
            digits_ = precision;
        else if (io::format_columns(format).aligned)
            digits_ = 4;
    }
    std::string operator()(double v) const {
        if (std::isnan(v)) return "nan";
        return digits_ ? fmt::format("{:.{}g}", v, *digits_) : fmt::format("{}", v);
    }

  private:
    std::optional<int> digits_;
};

// One row of the long table: a layer at one size.
struct Row {
    LayerCounts counts;
    std::string complexity;
    const SymbolicRow* symbolic;
    Measurement measured{};
};

/// "n = 1024, d = 512, k = 3, r = 2".
std::string sizes_text(const LayerSizes& s);

/// The symbolic cost, with the projections' n d^2 term when they are counted.
std::string symbolic_complexity(const SymbolicRow& row, bool with_projections);

/// The table of d2l 11.6.2: layer, complexity, sequential operations, maximum path length.
io::MatrixStream symbolic_stream();

/// One row per layer and size: the counts, and with measured the seconds and GFLOP/s.
io::MatrixStream counts_stream(const std::vector<Row>& rows, const RealFormat& real, bool measured,
                               std::string title, bool values);

/// The picture: one row per point, the swept size then each layer's multiply-adds
/// (columns named by layer_name), drawn as curves against the size on log-log axes; the
/// size where self-attention and the recurrent layer cost the same (n = d) is marked.
/// rows holds kLayers.size() rows per point, in the order of kLayers.
io::MatrixStream curves_stream(const std::vector<Row>& rows, const std::vector<LayerSizes>& points,
                               SizeVariable variable, u64 LayerSizes::*swept, std::string title);

/// Where self-attention starts to cost more multiply-adds than the recurrent and the
/// convolutional layer, for each distinct (d, k) of the points.
struct Crossover {
    Layer versus;
    LayerSizes sizes;
    u64 n;
};
std::vector<Crossover> crossovers(const std::vector<LayerSizes>& points);
io::MatrixStream crossovers_stream(const std::vector<Crossover>& cross, bool values);

/// Per layer: the exponent of the swept size in the leading term, and the log-log slopes of
/// the counts and of the measured seconds over the points (rows: points x kLayers).
struct Exponent {
    Layer layer;
    int asymptotic;
    double counts, measured;
};
std::vector<Exponent> exponents(const std::vector<Row>& rows, const std::vector<LayerSizes>& points,
                                u64 LayerSizes::*swept, bool with_projections);
io::MatrixStream exponents_stream(const std::vector<Exponent>& exps, const std::string& variable,
                                  const RealFormat& real, bool values);

}  // namespace attn::cli
