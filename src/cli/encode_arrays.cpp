// The arrays of rope (inv_freq, angles, cos, sin, rotated), alibi (slopes, bias) and t5
// (buckets): descriptions for the writers and producers of row blocks.
#include "cli/encode_arrays.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "io/matrix_stack.hpp"

namespace attn::cli {

namespace {

using Table = SchemeTable;

const char* angle_dtype_name(pos::AngleDtype t) {
    return t == pos::AngleDtype::float32    ? "float32"
           : t == pos::AngleDtype::bfloat16 ? "bfloat16"
                                            : "float16";
}

// cos and sin of row `position` in the dtype, (h,) each: fl(sin/cos(a_j)) times fl(A) rounded
// (yarn's factor; 1 otherwise).
void dtype_cos_sin(const pos::Rope& rope, pos::AngleDtype t, std::int64_t position, double* c,
                   double* s) {
    const auto& f = rope.inv_freq_exact();
    const double a = pos::round_to(t, rope.attention_factor_exact());
    for (std::size_t j = 0; j < f.size(); ++j) {
        pos::dtype_sincos(t, pos::dtype_angle(t, position, f[j]), s[j], c[j]);
        if (a != 1.0) {
            c[j] = pos::round_to(t, {c[j] * a, 0.0});
            s[j] = pos::round_to(t, {s[j] * a, 0.0});
        }
    }
}

io::MatrixStream array(const SchemeRun& run, std::string name, std::string title,
                       std::vector<std::size_t> shape) {
    io::MatrixStream s;
    s.info.name = std::move(name);
    s.info.title = std::move(title);
    s.info.shape = std::move(shape);
    s.info.dtype = run.dtype;
    s.info.column_labels = io::index_labels(s.info.columns());
    return s;
}

// Row label "position" (start + row % n), and "batch" first for a (b, n, d) array.
void label_positions(io::ArrayInfo& info, std::size_t n, std::int64_t start, bool batch) {
    if (batch)
        info.labels.push_back({"batch", [n](std::size_t r) { return std::to_string(r / n); }});
    info.labels.push_back({"position", [start, n](std::size_t r) {
                               return std::to_string(start + static_cast<std::int64_t>(r % n));
                           }});
}

std::string rope_title(const SchemeRun& run, const std::string& what) {
    const EncodeOptions& o = *run.opt;
    std::string t = fmt::format("RoPE {}, d {}, base {}, {}", what, run.d, o.base,
                                run.layout == pos::Layout::split ? "split" : "interleaved");
    if (o.scaling != pos::RopeScaling::none)
        t += fmt::format(", {} scaling, factor {}", pos::scaling_name(o.scaling), *o.factor);
    if (run.rope && run.rope->attention_factor() != 1.0)
        t += fmt::format(", attention factor {}", run.rope->attention_factor());
    if (run.angles) t += fmt::format(", angles in {}", angle_dtype_name(*run.angles));
    return t;
}

io::MatrixStream inv_freq_stream(const SchemeRun& run) {
    io::MatrixStream s =
        array(run, "inv_freq", rope_title(run, "inverse frequencies"), {run.d / 2});
    s.info.column_axis = "Frequency j";
    auto rope = run.rope;
    const auto t = run.angles;
    s.produce = [rope, t](std::size_t, std::size_t, double* out) {
        const std::vector<double> f = rope->inv_freq();
        std::copy(f.begin(), f.end(), out);
        if (t)
            for (std::size_t j = 0; j < f.size(); ++j)
                out[j] = pos::round_to(*t, rope->inv_freq_exact()[j]);
    };
    return s;
}

io::MatrixStream angles_stream(const SchemeRun& run) {
    io::MatrixStream s =
        array(run, "angles", rope_title(run, "angles (start + i) inv_freq[j]"), {run.n, run.d / 2});
    label_positions(s.info, run.n, run.opt->start, false);
    s.info.column_axis = "Frequency j";
    const std::int64_t start = run.opt->start;
    auto rope = run.rope;
    const auto t = run.angles;
    s.produce = [rope, start, t](std::size_t first, std::size_t count, double* out) {
        if (!t) return rope->angles(start + static_cast<std::int64_t>(first), count, out);
        const auto& f = rope->inv_freq_exact();
        for (std::size_t k = 0; k < count; ++k)
            for (std::size_t j = 0; j < f.size(); ++j)
                out[k * f.size() + j] =
                    pos::dtype_angle(*t, start + static_cast<std::int64_t>(first + k), f[j]);
    };
    return s;
}

io::MatrixStream cos_sin_stream(const SchemeRun& run, bool cosine) {
    const char* name = cosine ? "cos" : "sin";
    io::MatrixStream s = array(run, name, rope_title(run, name), {run.n, run.d});
    label_positions(s.info, run.n, run.opt->start, false);
    s.info.column_axis = "Column (head dimension)";
    const double a = run.rope->attention_factor();
    s.info.value_range = std::make_pair(-a, a);
    const std::int64_t start = run.opt->start;
    const std::size_t d = run.d;
    auto rope = run.rope;
    const auto layout = run.layout;
    auto other = std::make_shared<std::vector<double>>();
    const auto t = run.angles;
    s.produce = [=](std::size_t first, std::size_t count, double* out) {
        if (t) {  // (h,) cosines then (h,) sines per row, laid out
            const std::size_t h = d / 2;
            other->resize(d);
            for (std::size_t k = 0; k < count; ++k) {
                dtype_cos_sin(*rope, *t, start + static_cast<std::int64_t>(first + k),
                              other->data(), other->data() + h);
                const double* v = other->data() + (cosine ? 0 : h);
                for (std::size_t j = 0; j < h; ++j) {
                    const bool split = layout == pos::Layout::split;
                    out[k * d + (split ? j : 2 * j)] = v[j];
                    out[k * d + (split ? j + h : 2 * j + 1)] = v[j];
                }
            }
            return;
        }
        const std::size_t block = rope->block_rows();
        other->resize(block * d);
        for (std::size_t done = 0; done < count;) {
            const std::size_t c = std::min(block, count - done);
            double* mine = out + done * d;
            rope->cos_sin(start + static_cast<std::int64_t>(first + done), c, layout,
                          cosine ? mine : other->data(), cosine ? other->data() : mine);
            done += c;
        }
    };
    return s;
}

io::MatrixStream rotated_stream(const SchemeRun& run) {
    std::vector<std::size_t> shape = run.x->shape;
    io::MatrixStream s = array(run, "rotated", rope_title(run, "rotation of X"), shape);
    label_positions(s.info, run.n, run.opt->start, run.batch > 0);
    s.info.column_axis = "Column (head dimension)";
    const std::int64_t start = run.opt->start;
    const std::size_t n = run.n, d = run.d;
    auto rope = run.rope;
    auto x = run.x;
    const auto layout = run.layout;
    const auto t = run.angles;
    auto cs = std::make_shared<std::vector<double>>();
    s.produce = [=](std::size_t first, std::size_t count, double* out) {
        if (t) {  // x, cos and sin in the dtype; each product and the sum rounded to it
            const std::size_t h = d / 2;
            cs->resize(d);
            for (std::size_t k = 0; k < count; ++k) {
                const std::size_t g = first + k;
                dtype_cos_sin(*rope, *t, start + static_cast<std::int64_t>(g % n), cs->data(),
                              cs->data() + h);
                const double* xr = &x->values[g * d];
                for (std::size_t j = 0; j < h; ++j) {
                    const bool split = layout == pos::Layout::split;
                    const std::size_t ia = split ? j : 2 * j, ib = split ? j + h : 2 * j + 1;
                    const double a = pos::round_to(*t, {xr[ia], 0.0});
                    const double b = pos::round_to(*t, {xr[ib], 0.0});
                    const double c = (*cs)[j], sn = (*cs)[h + j];
                    const auto mul = [&](double u, double v) {
                        return pos::round_to(*t, {u * v, 0.0});
                    };
                    out[k * d + ia] = pos::round_to(*t, pos::two_sum(mul(a, c), -mul(b, sn)));
                    out[k * d + ib] = pos::round_to(*t, pos::two_sum(mul(b, c), mul(a, sn)));
                }
            }
            return;
        }
        const std::size_t block = rope->block_rows();
        for (std::size_t done = 0; done < count;) {
            const std::size_t g = first + done, r = g % n;
            const std::size_t c = std::min({block, n - r, count - done});
            rope->rotate(start + static_cast<std::int64_t>(r), c, layout, &x->values[g * d],
                         out + done * d);
            done += c;
        }
    };
    return s;
}

io::MatrixStream slopes_stream(const SchemeRun& run) {
    const std::size_t H = static_cast<std::size_t>(run.opt->heads);
    io::MatrixStream s = array(run, "slopes", fmt::format("ALiBi slopes m_h, {} heads", H), {H});
    s.info.column_axis = "Head";
    s.produce = [H](std::size_t, std::size_t, double* out) {
        const std::vector<double> m = pos::alibi_slopes(H);
        std::copy(m.begin(), m.end(), out);
    };
    return s;
}

io::MatrixStream bias_stream(const SchemeRun& run) {
    const std::size_t H = run.alibi->heads(), n = run.n;
    io::MatrixStream s =
        array(run, "bias", fmt::format("ALiBi bias -m_h |i - j|, {} heads", H), {H, n, n});
    s.info.labels.push_back({"head", [n](std::size_t r) { return std::to_string(r / n); }});
    s.info.labels.push_back({"query", [n](std::size_t r) { return std::to_string(r % n); }});
    s.info.row_axis = "query";
    s.info.column_axis = "key";
    s.info.panel_rows = n;
    for (std::size_t h = 0; h < H; ++h) s.info.panel_titles.push_back(fmt::format("head {}", h));
    auto bias = run.alibi;
    s.produce = [bias](std::size_t first, std::size_t count, double* out) {
        bias->fill(first, count, out);
    };
    return s;
}

io::MatrixStream buckets_stream(const SchemeRun& run) {
    const std::size_t n = run.n;
    const pos::T5Buckets t5 = run.t5;
    io::MatrixStream s = array(
        run, "buckets",
        fmt::format("T5 relative-position buckets of j - i, {} buckets, max distance {}, {}",
                    t5.num_buckets, t5.max_distance, t5.bidirectional ? "bidirectional" : "causal"),
        {n, n});
    s.info.dtype = io::Dtype::int64;  // bucket ids, whatever --dtype says
    s.info.labels.push_back({"query", [](std::size_t r) { return std::to_string(r); }});
    s.info.row_axis = "query";
    s.info.column_axis = "key";
    // buckets[i, j] depends on j - i only: ids of r = -(n-1) .. n-1 (2n - 1 of them), made
    // once; row i is ids[n - 1 - i ..][0 .. n).
    auto ids = std::make_shared<std::vector<double>>();
    s.produce = [=](std::size_t first, std::size_t count, double* out) {
        if (ids->empty())
            for (std::size_t k = 0; k + 1 < 2 * n; ++k)
                ids->push_back(static_cast<double>(pos::t5_bucket(
                    static_cast<std::int64_t>(k) - static_cast<std::int64_t>(n - 1), t5)));
        for (std::size_t k = 0; k < count; ++k)
            std::copy_n(ids->data() + (n - 1 - (first + k)), n, out + k * n);
    };
    return s;
}

const Table& rope_table() {
    static const Table table{
        {EncodeArray::inv_freq, "inv_freq", "(d/2)", "base^(-2j/d) after --rope-scaling",
         inv_freq_stream},
        {EncodeArray::angles, "angles", "(n, d/2)", "(start + i) inv_freq[j] (default)",
         angles_stream},
        {EncodeArray::cos, "cos", "(n, d)", "cos of the angles in --layout (times yarn's factor)",
         [](const SchemeRun& r) { return cos_sin_stream(r, true); }},
        {EncodeArray::sin, "sin", "(n, d)", "sin of the angles in --layout (times yarn's factor)",
         [](const SchemeRun& r) { return cos_sin_stream(r, false); }},
        {EncodeArray::rotated, "rotated", "([b,] n, d)", "X of --apply rotated (its default)",
         rotated_stream, kNeedsApply}};
    return table;
}
const Table& alibi_table() {
    static const Table table{
        {EncodeArray::slopes, "slopes", "(H)", "m_h: 2^(-8h/H), h = 1..H (BLOOM's for other H)",
         slopes_stream},
        {EncodeArray::bias, "bias", "(H, n, n)", "-m_h |i - j| (default)", bias_stream}};
    return table;
}
const Table& sinusoidal_table() {
    static const Table table{
        {EncodeArray::P, "P", "(n, d)", "the positional encoding (default)", nullptr}};
    return table;
}
const Table& t5_table() {
    static const Table table{{EncodeArray::buckets, "buckets", "(n, n)",
                              "int64 bucket of j - i, key minus query (default)", buckets_stream}};
    return table;
}

}  // namespace

const SchemeTable& table_of(Scheme scheme) {
    static const SchemeTable none;
    switch (scheme) {
        case Scheme::sinusoidal:
            return sinusoidal_table();
        case Scheme::rope:
            return rope_table();
        case Scheme::alibi:
            return alibi_table();
        case Scheme::t5:
            return t5_table();
        case Scheme::none:
            break;
    }
    return none;
}

EncodeArray default_array(Scheme scheme, bool apply) {
    switch (scheme) {
        case Scheme::rope:
            return apply ? EncodeArray::rotated : EncodeArray::angles;
        case Scheme::alibi:
            return EncodeArray::bias;
        case Scheme::t5:
            return EncodeArray::buckets;
        case Scheme::none:
        case Scheme::sinusoidal:
            break;
    }
    return EncodeArray::P;
}

ExactForm exact_form(EncodeArray item, const SchemeRun& run) {
    constexpr double u = 0x1p-52;  // twice the unit roundoff of double
    const std::int64_t start = run.opt->start;
    const std::size_t n = std::max<std::size_t>(run.n, 1), d = run.d, h = d / 2;
    const auto split = run.layout == pos::Layout::split;
    auto rope = run.rope;
    auto x = run.x;
    ExactForm e;
    e.rel = u;
    const auto position = [start, n](std::size_t row) {
        return start + static_cast<std::int64_t>(row % n);
    };
    // A cos/sin (angle of column c in the layout) as double-doubles.
    const auto cos_sin = [rope, split](std::int64_t i, std::size_t j) {
        const pos::SinCos v = pos::sincos(i, rope->inv_freq_exact()[j]);
        const pos::DoubleDouble a = rope->attention_factor_exact();
        return pos::SinCos{pos::multiply(a, v.sin), pos::multiply(a, v.cos)};
    };
    switch (item) {
        case EncodeArray::inv_freq:
            e.at = [rope](std::size_t, std::size_t c) { return rope->inv_freq_exact()[c]; };
            break;
        case EncodeArray::angles:
            e.at = [rope, position](std::size_t r, std::size_t c) {
                return pos::multiply(position(r), rope->inv_freq_exact()[c]);
            };
            break;
        case EncodeArray::cos:
        case EncodeArray::sin: {
            const bool cosine = item == EncodeArray::cos;
            e.abs = 0x1p-90;
            e.at = [=](std::size_t r, std::size_t c) {
                const pos::SinCos v = cos_sin(position(r), split ? c % h : c / 2);
                return cosine ? v.cos : v.sin;
            };
            break;
        }
        case EncodeArray::rotated: {
            double largest = 0;
            for (const double v : x->values) largest = std::max(largest, std::fabs(v));
            e.abs = 0x1p-50 * largest * std::fabs(rope->attention_factor());
            e.at = [=](std::size_t r, std::size_t c) {
                const std::size_t j = split ? c % h : c / 2;
                const bool first = split ? c < h : c % 2 == 0;
                const std::size_t partner =
                    split ? (first ? c + h : c - h) : (first ? c + 1 : c - 1);
                const pos::SinCos v = cos_sin(position(r), j);
                const double a = x->values[r * d + c], b = x->values[r * d + partner];
                // first: a cos - b sin; second: a cos + b sin (b is the first of the pair).
                const pos::DoubleDouble bs = pos::multiply(pos::DoubleDouble{b, 0.0}, v.sin);
                return pos::add(pos::multiply(pos::DoubleDouble{a, 0.0}, v.cos),
                                first ? pos::negate(bs) : bs);
            };
            break;
        }
        case EncodeArray::slopes: {
            auto m = std::make_shared<std::vector<pos::DoubleDouble>>(
                pos::alibi_slopes_exact(static_cast<std::size_t>(run.opt->heads)));
            e.at = [m](std::size_t, std::size_t c) { return (*m)[c]; };
            break;
        }
        case EncodeArray::bias: {
            auto m = std::make_shared<std::vector<pos::DoubleDouble>>(
                pos::alibi_slopes_exact(run.alibi->heads()));
            e.rel = 2 * u;
            e.at = [m, n](std::size_t r, std::size_t c) {
                const auto i = static_cast<std::int64_t>(r % n), j = static_cast<std::int64_t>(c);
                if (i == j) return pos::DoubleDouble{};  // +0, as the double path writes it
                return pos::negate(pos::multiply(i > j ? i - j : j - i, (*m)[r / n]));
            };
            break;
        }
        default:
            break;
    }
    return e;
}

const char* scheme_name(Scheme s) {
    return s == Scheme::sinusoidal ? "sinusoidal"
           : s == Scheme::rope     ? "rope"
           : s == Scheme::alibi    ? "alibi"
                                   : "t5";
}

}  // namespace attn::cli
