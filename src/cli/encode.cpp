// attn encode: the positional-encoding matrix P (n x d), or X + P, streamed in row blocks;
// --scheme rope|alibi|t5 are checked and streamed by encode_schemes.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attn/positions/dtype_rounding.hpp"
#include "attn/positions/float32_angles.hpp"
#include "attn/positions/sinusoidal.hpp"
#include "cli/arguments.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/encode_dtype.hpp"
#include "cli/encode_options.hpp"
#include "cli/enum_option.hpp"
#include "cli/exit_code.hpp"
#include "io/matrix_stream.hpp"
#include "io/npy.hpp"
#include "io/output_file.hpp"
#include "io/progress.hpp"

namespace attn::cli {

namespace {

const NameTable<positions::Layout> kLayouts{{"interleaved", positions::Layout::interleaved},
                                            {"split", positions::Layout::split}};
const NameTable<Scheme> kSchemes{{"sinusoidal", Scheme::sinusoidal},
                                 {"rope", Scheme::rope},
                                 {"alibi", Scheme::alibi},
                                 {"t5", Scheme::t5}};
const NameTable<positions::RopeScaling> kScalings{{"none", positions::RopeScaling::none},
                                                  {"linear", positions::RopeScaling::linear},
                                                  {"dynamic", positions::RopeScaling::dynamic},
                                                  {"yarn", positions::RopeScaling::yarn},
                                                  {"llama3", positions::RopeScaling::llama3}};
const NameTable<Angles> kAngles{{"exact", Angles::exact},
                                {"float32", Angles::float32},
                                {"bfloat16", Angles::bfloat16},
                                {"float16", Angles::float16}};

// X for --add: (n, d) or a batch (b, n, d), float32 or float64, from .npy ("-" = stdin).
io::NpyArray read_addend(const EncodeOptions& opt) {
    // The reader asks the memory budget for X before reading it (a missing file is exit 1).
    io::NpyArray x = naming_option("--add", [&] { return io::read_npy(opt.add); });
    if (x.shape.size() != 2 && x.shape.size() != 3)
        throw UsageError(
            fmt::format("--add: {}: X has {} dimensions; it must be (n, d) or (b, n, d)", opt.add,
                        x.shape.size()));
    const std::size_t n = x.shape[x.shape.size() - 2], d = x.shape.back();
    if ((opt.typed("--positions") && n != static_cast<std::size_t>(opt.positions)) ||
        (opt.typed("--dim") && d != static_cast<std::size_t>(opt.dim)))
        throw UsageError(
            fmt::format("--add: {}: X has {} rows and {} columns, but -n {} -d {} was asked",
                        opt.add, n, d, opt.positions, opt.dim));
    return x;
}

// What P (or X + P) is made from.
struct PRun {
    const EncodeOptions& opt;
    const io::NpyArray& x;  // empty: P alone
    std::size_t n, d, batch;
    Slice cols;
    io::Dtype dtype;
    bool to_terminal;  // the output is a terminal (no progress bar over it)
};

// Pair j and whether column c of the layout is its sine.
std::pair<std::size_t, bool> column_pair(std::size_t c, std::size_t d, positions::Layout layout) {
    if (layout == positions::Layout::interleaved) return {c / 2, c % 2 == 0};
    const std::size_t sines = (d + 1) / 2;
    return c < sines ? std::pair{c, true} : std::pair{c - sines, false};
}

// P's values for angles (exact: within ~4e-16 of the exact values, 2^-100 before the one
// rounding with float64 output; float32: the book's recipe; bfloat16|float16: computed in that
// dtype, X added in it).
io::MatrixStream p_stream(const PRun& run, Angles angles, bool progress_bar) {
    const EncodeOptions& opt = run.opt;
    const std::size_t n = run.n, d = run.d;
    const io::NpyArray& x = run.x;
    const auto in_dtype = angle_dtype(angles);
    // float64 output gets the double-double combination: float32 is within 1 ulp either way.
    // --angles float32: the book's float32 recipe, each step correctly rounded.
    std::shared_ptr<const positions::Float32AngleEncoder> book;  // base must fit float32
    if (angles == Angles::float32)
        book = std::make_shared<const positions::Float32AngleEncoder>(d, opt.base, opt.layout);
    auto encoder = std::make_shared<const positions::PositionalEncoder>(
        d, opt.base, opt.layout, std::max<std::size_t>(n, 1),
        run.dtype == io::Dtype::float64 ? positions::Combine::extended : positions::Combine::fast);
    auto freq = std::make_shared<std::vector<positions::DoubleDouble>>();
    for (std::size_t j = 0; j < (d + 1) / 2; ++j)
        freq->push_back(positions::inverse_power(opt.base, 2 * j, d));
    io::ArrayInfo info;
    info.name = x.shape.empty() ? "P" : "X_plus_P";
    info.title =
        fmt::format("{}positional encoding P, base {}, {}{}", x.shape.empty() ? "" : "X + ",
                    opt.base, name_of(kLayouts, opt.layout),
                    angles == Angles::exact     ? ""
                    : angles == Angles::float32 ? ", float32 angles (the book's recipe)"
                                                : ", angles in " + name_of(kAngles, angles));
    const std::int64_t start = opt.start;
    if (x.shape.size() == 3)
        info.labels.push_back({"batch", [n](std::size_t r) { return std::to_string(r / n); }});
    info.labels.push_back({"position", [start, n](std::size_t r) {
                               return std::to_string(start + static_cast<std::int64_t>(r % n));
                           }});
    const Slice cols = run.cols;
    for (std::size_t k = 0; k < cols.size(); ++k)
        info.column_labels.push_back(std::to_string(cols[k]));
    info.column_axis = "Column (encoding dimension)";
    info.shape = {n, cols.size()};
    if (x.shape.size() == 3) info.shape.insert(info.shape.begin(), run.batch);
    info.dtype = run.dtype;

    // Output row g is position g % n of batch item g / n. The producer writes rows
    // [g, g + count) as (count, columns) into out; it only reads shared state, so the next
    // block is made on a second thread while this one is written.
    const std::size_t block = encoder->block_rows(), columns = cols.size();
    auto scratch = std::make_shared<std::vector<double>>();  // (block, d) when columns < d
    auto progress = std::make_shared<io::Progress>(
        "encode", info.rows(), progress_bar && !opt.out.quiet && !run.to_terminal);
    const positions::Layout layout = opt.layout;
    const double* xv = x.values.data();
    const bool add = !x.shape.empty();
    auto produce = [=](std::size_t g, std::size_t count, double* out) {
        const bool all_columns = columns == d;  // then rows are made in place, no copy
        if (!all_columns) scratch->resize(block * d);
        for (std::size_t done = 0; done < count;) {
            const std::size_t b = (g + done) / n, r = (g + done) % n;
            const std::size_t c = std::min({block, n - r, count - done});
            double* rows = all_columns ? out + done * d : scratch->data();  // (c, d)
            const std::int64_t first = start + static_cast<std::int64_t>(r);
            if (angles == Angles::exact)
                encoder->fill(first, c, rows);
            else if (angles == Angles::float32)
                book->fill(first, c, rows);
            for (std::size_t k = 0; in_dtype && angles != Angles::float32 && k < c; ++k)
                for (std::size_t col = 0; col < d; ++col) {
                    const auto [j, sine] = column_pair(col, d, layout);
                    double sv, cv;
                    positions::dtype_sincos(
                        *in_dtype, positions::dtype_angle(*in_dtype, first + k, (*freq)[j]), sv,
                        cv);
                    rows[k * d + col] = sine ? sv : cv;
                }
            if (add) {
                const double* xr = xv + (b * n + r) * d;  // X[b, r:r+c, :]
                for (std::size_t k = 0; k < c * d; ++k)
                    rows[k] = in_dtype && angles != Angles::float32
                                  ? positions::round_to(
                                        *in_dtype,
                                        positions::two_sum(
                                            positions::round_to(*in_dtype, {xr[k], 0.0}), rows[k]))
                                  : rows[k] + xr[k];
            }
            if (!all_columns)
                for (std::size_t k = 0; k < c; ++k)
                    for (std::size_t j = 0; j < columns; ++j)
                        out[(done + k) * columns + j] = (*scratch)[k * d + cols[j]];
            done += c;
        }
        progress->advance(count);
    };
    return {std::move(info), produce};
}

// P's exact form: sin/cos(i w_j) as double-doubles, plus X.
ExactForm p_exact(const PRun& run) {
    ExactForm e;
    e.abs = 1e-15;  // Combine::fast
    e.rel = 0x1p-52;
    auto freq = std::make_shared<std::vector<positions::DoubleDouble>>();
    for (std::size_t j = 0; j < (run.d + 1) / 2; ++j)
        freq->push_back(positions::inverse_power(run.opt.base, 2 * j, run.d));
    const std::int64_t start = run.opt.start;
    const std::size_t n = std::max<std::size_t>(run.n, 1), d = run.d;
    const Slice cols = run.cols;
    const positions::Layout layout = run.opt.layout;
    const double* xv = run.x.shape.empty() ? nullptr : run.x.values.data();
    e.at = [=](std::size_t r, std::size_t c) {
        const auto [j, sine] = column_pair(cols[c], d, layout);
        const positions::SinCos v =
            positions::sincos(start + static_cast<std::int64_t>(r % n), (*freq)[j]);
        const positions::DoubleDouble p = sine ? v.sin : v.cos;
        return xv ? positions::add(p, {xv[r * d + cols[c]], 0.0}) : p;
    };
    return e;
}

int run_encode(const EncodeOptions& opt) {
    if (!opt.model.model.empty() || opt.typed("--revision")) return run_encode_model(opt);
    if (!std::isfinite(opt.base) || !(opt.base > 1.0))
        throw UsageError(fmt::format("--base: {} is not a finite number greater than 1", opt.base));
    check_scheme_options(opt);
    if (opt.scheme != Scheme::sinusoidal) return run_scheme(opt);
    const EncodeShow show = parse_encode_show(opt);  // P, all: P; and whether error
    // X + P: X is read whole (it is the user's data); n and d default to X's.
    const io::NpyArray x = opt.add.empty() ? io::NpyArray{} : read_addend(opt);
    const std::size_t batch = x.shape.size() == 3 ? x.shape[0] : 1;
    const auto n =
        x.shape.empty() ? static_cast<std::size_t>(opt.positions) : x.shape[x.shape.size() - 2];
    const auto d = x.shape.empty() ? static_cast<std::size_t>(opt.dim) : x.shape.back();
    Slice cols{0, d};
    if (!opt.columns.empty()) {
        cols = naming_option("--columns", [&] { return parse_slice(opt.columns, d); });
    }
    const io::OutputSpec spec = resolve_output(encode_output(opt));
    io::Output output(spec, 1);
    const PRun run{opt, x, n, d, batch, cols, output.dtype(), spec.to_terminal};
    const auto angles = angle_dtype(opt.angles);
    io::MatrixStream stream = p_stream(run, opt.angles, true);
    const ExactForm exact = p_exact(run);
    if (!angles) stream = rounded_once(std::move(stream), exact);
    if (show.errors) {
        PRun reference = run;
        reference.dtype = io::Dtype::float64;
        stream = error_stream(std::move(stream), p_stream(reference, Angles::exact, false), exact,
                              !angles && run.dtype == io::Dtype::float64);
    }
    io::DriveOptions drive;  // 16 of the encoder's blocks (SinCosRows: 2^20 cells at most)
    drive.block_rows =
        16 * std::clamp<std::size_t>((std::size_t{1} << 20) / std::max<std::size_t>((d + 1) / 2, 1),
                                     1, std::clamp<std::size_t>(n, 1, 256));
    drive.compute_ahead = thread_count(opt.out) > 1;
    io::drive(output.sink(), stream, drive);
    output.commit();
    return kOk;
}

}  // namespace

void add_scheme_options(CLI::App& sub, EncodeOptions& opt) {
    const std::string rope = "--scheme rope (Hugging Face's rope_scaling keys)";
    add_enum_option(sub, "--rope-scaling", opt.scaling, kScalings,
                    "Scaling of the frequencies (rope_scaling's rope_type)")
        ->group(rope);
    sub.add_option("--factor", opt.factor, "factor F: required by every scaling but none")
        ->group(rope);
    sub.add_option("--original-max-positions", opt.original_max_positions,
                   "original_max_position_embeddings M: required by dynamic, yarn, llama3")
        ->group(rope);
    sub.add_option("--low-freq-factor", opt.low_freq_factor, "llama3's low_freq_factor (required)")
        ->group(rope);
    sub.add_option("--high-freq-factor", opt.high_freq_factor,
                   "llama3's high_freq_factor (required)")
        ->group(rope);
    sub.add_option("--beta-fast", opt.beta_fast, "yarn's beta_fast (default 32)")->group(rope);
    sub.add_option("--beta-slow", opt.beta_slow, "yarn's beta_slow (default 1)")->group(rope);
    add_file_option(sub, "--apply", opt.apply,
                    "Rotate X in an .npy file, (n, d) or (b, n, d): --show rotated; - reads stdin")
        ->group(rope);
    sub.add_option("--heads", opt.heads, "Number of heads H (slopes, bias)")
        ->capture_default_str()
        ->group("--scheme alibi");
    const std::string t5 = "--scheme t5 (T5's relative-position buckets)";
    sub.add_option("--buckets", opt.buckets, "num_buckets B (>= 4, or >= 2 with --causal)")
        ->capture_default_str()
        ->group(t5);
    sub.add_option("--max-distance", opt.max_distance,
                   "max_distance D, above the exact range B/4 (B/2 with --causal)")
        ->capture_default_str()
        ->group(t5);
    sub.add_flag("--causal", opt.causal, "Unidirectional: every future key is bucket 0")->group(t5);
}

Command add_encode(CLI::App& root) {
    auto opt = std::make_shared<EncodeOptions>();  // bound addresses must outlive parse()
    CLI::App* sub = root.add_subcommand(
        "encode", "Position encodings: sinusoidal P (n x d) or X + P, RoPE, ALiBi, T5 buckets");
    add_enum_option(*sub, "--scheme", opt->scheme, kSchemes,
                    "Position scheme: sinusoidal (the chapter's P), rope, alibi or t5");
    sub->add_option("--show", opt->show,
                    "Comma list of the scheme's arrays (below), or all; default: the one marked "
                    "default; with error: each one's value minus its exact value (float64)")
        ->type_name("LIST");
    add_file_option(*sub, "--add", opt->add,
                    "Print X + P for X in an .npy file, (n, d) or (b, n, d); - reads stdin");
    sub->add_option("-n,--positions", opt->positions, "Number of positions (rows)")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
        ->capture_default_str();
    sub->add_option("-d,--dim", opt->dim, "Encoding dimension d (columns); odd d ends with a sine")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24))
        ->capture_default_str();
    sub->add_option("--base", opt->base, "Base of the wavelengths, > 1")->capture_default_str();
    sub->add_option("--start", opt->start, "First position")
        ->check(CLI::Range(-(std::int64_t{1} << 52), std::int64_t{1} << 52))
        ->capture_default_str();
    add_enum_option(*sub, "--layout", opt->layout, kLayouts,
                    "Column order: interleaved [s0 c0 s1 c1 ...] or split [s0 s1 ... c0 c1 ...]; "
                    "rope: split (rotate_half) or interleaved (GPT-J)")
        ->default_str("interleaved (sinusoidal), split (rope)");
    add_enum_option(*sub, "--angles", opt->angles, kAngles,
                    "exact (the closed form); float32: sinusoidal the book's float32 recipe, rope "
                    "fl(fl(i) fl(inv_freq)); bfloat16, float16: fl(fl(i) fl(inv_freq)) in that "
                    "dtype, sin/cos rounded to it (and the output dtype)");
    sub->add_option("--columns", opt->columns,
                    "Columns A:B to print, half-open, negatives from the end (e.g. 6:10)")
        ->type_name("A:B");
    add_scheme_options(*sub, *opt);
    add_model_options(*sub, *opt);
    add_output_options(*sub, opt->out, true);
    sub->footer(
        "Examples:\n"
        "  attn encode -n 60 -d 32 --columns 6:10   columns 6 to 9, the book's figure\n"
        "  attn encode -n 1000000 -d 128 -o P.npy   streamed: memory does not grow with n\n"
        "  attn encode -n 4 -d 6 -f csv --precision 6\n"
        "  attn encode --scheme rope -n 8 -d 16 --show cos -f csv\n"
        "  attn encode --scheme alibi --heads 4 -n 16 -o bias.svg   one panel per head\n"
        "  attn encode --scheme t5 -n 64 --causal -o buckets.npy   int64 bucket ids\n"
        "  attn encode --model openai-community/gpt2 -n 64 -o wpe.npy   GPT-2's learned P\n"
        "  attn encode --scheme rope -d 128 --start 100000 --angles bfloat16 --show cos,error\n\n" +
        scheme_show_help());
    return {sub,
            [opt, sub] {
                for (const CLI::Option* o : sub->get_options())
                    if (o->count() > 0) opt->given.push_back(o->get_name());
                return run_encode(*opt);
            },
            &opt->out};
}

}  // namespace attn::cli
