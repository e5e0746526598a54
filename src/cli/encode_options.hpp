// attn encode's options, shared by encode.cpp (parsing, the sinusoidal P) and
// encode_schemes.cpp (rope, alibi, t5: checks and arrays).
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/positions/dtype_rounding.hpp"
#include "attn/positions/rope.hpp"
#include "attn/positions/scheme.hpp"
#include "attn/positions/sinusoidal.hpp"
#include "cli/common_options.hpp"
#include "cli/model_files.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

using positions::Scheme;  // the library's one scheme enum; encode takes every value but none
enum class Angles { exact, float32, bfloat16, float16 };

/// Every array encode can print (which belong to which scheme: the tables of
/// encode_arrays.cpp), and error: the --show name that prints each listed array as its error.
enum class EncodeArray { P, inv_freq, angles, cos, sin, rotated, slopes, bias, buckets, error };

/// A parsed --show list: the arrays in order, without repeats, and whether `error` was named
/// (each array's value minus its exact value instead of its value).
struct EncodeShow {
    std::vector<EncodeArray> arrays;
    bool errors = false;
};

struct EncodeOptions {
    Scheme scheme = Scheme::sinusoidal;
    std::string show;  // "" = the scheme's default array
    std::int64_t positions = 60;
    std::int64_t dim = 32;
    double base = 10000.0;
    std::int64_t start = 0;
    positions::Layout layout =
        positions::Layout::interleaved;  // split for rope unless --layout is given
    std::string columns;                 // "" = all (sinusoidal)
    std::string add;                     // "" = P alone (sinusoidal)
    Angles angles = Angles::exact;       // sinusoidal
    // rope
    positions::RopeScaling scaling = positions::RopeScaling::none;
    std::optional<double> factor, original_max_positions, low_freq_factor, high_freq_factor,
        beta_fast, beta_slow;
    std::string apply;  // X.npy to rotate
    // encode --model: the config's parameters, used instead of the scaling options above
    std::optional<positions::RopeParameters> model_rope;
    // alibi
    std::int64_t heads = 8;
    // t5
    std::int64_t buckets = 32;
    std::int64_t max_distance = 128;
    bool causal = false;

    ModelOptions model;  // --model, --revision (encode_model.cpp)

    std::vector<std::string> given;  // long names of the options typed, e.g. "--heads"
    OutputOptions out;

    bool typed(const std::string& name) const;
};

/// Registers the scheme options (--scheme ... --causal) on sub.
void add_scheme_options(CLI::App& sub, EncodeOptions& opt);
/// The "Arrays (--show)" part of the help, per scheme.
std::string scheme_show_help();

/// Refuses (UsageError naming the option and the accepted values) an option that does not
/// belong to opt.scheme, and scaling parameters without --rope-scaling.
void check_scheme_options(const EncodeOptions& opt);

/// The arrays --show asks for (the scheme's default when it names none; UsageError naming
/// --show for a name the scheme does not have, and for rotated without --apply).
EncodeShow parse_encode_show(const EncodeOptions& opt);

/// --angles D computed in D (nullopt for exact).
std::optional<positions::AngleDtype> angle_dtype(Angles a);
/// The output options with --angles bfloat16|float16 as the dtype when --dtype is not typed
/// (UsageError for --dtype of the other reduced dtype).
OutputOptions encode_output(const EncodeOptions& opt);

/// Runs --scheme rope, alibi or t5: checks, then streams the arrays (exit status).
int run_scheme(const EncodeOptions& opt);

/// Registers --model and --revision on sub (encode_model.cpp).
void add_model_options(CLI::App& sub, EncodeOptions& opt);
/// encode --model: the model's own positions (encode_model.cpp).
int run_encode_model(const EncodeOptions& opt);

}  // namespace attn::cli
