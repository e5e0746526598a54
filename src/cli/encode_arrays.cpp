// The arrays of rope (inv_freq, angles, cos, sin, rotated), alibi (slopes, bias) and t5
// (buckets): descriptions for the writers and producers of row blocks.
#include "cli/encode_arrays.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace attn::cli {

namespace {

using Table = SchemeTable;

std::vector<std::string> indices(std::size_t n) {
    std::vector<std::string> out(n);
    for (std::size_t j = 0; j < n; ++j) out[j] = std::to_string(j);
    return out;
}

io::MatrixStream array(const SchemeRun& run, std::string name, std::string title,
                       std::vector<std::size_t> shape) {
    io::MatrixStream s;
    s.info.name = std::move(name);
    s.info.title = std::move(title);
    s.info.shape = std::move(shape);
    s.info.dtype = run.dtype;
    s.info.column_labels = indices(s.info.columns());
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
    return t;
}

io::MatrixStream inv_freq_stream(const SchemeRun& run) {
    io::MatrixStream s =
        array(run, "inv_freq", rope_title(run, "inverse frequencies"), {run.d / 2});
    s.info.column_axis = "Frequency j";
    auto rope = run.rope;
    s.produce = [rope](std::size_t, std::size_t, double* out) {
        const std::vector<double> f = rope->inv_freq();
        std::copy(f.begin(), f.end(), out);
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
    s.produce = [rope, start](std::size_t first, std::size_t count, double* out) {
        rope->angles(start + static_cast<std::int64_t>(first), count, out);
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
    s.produce = [=](std::size_t first, std::size_t count, double* out) {
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
    s.produce = [=](std::size_t first, std::size_t count, double* out) {
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
         rotated_stream}};
    return table;
}
const Table& alibi_table() {
    static const Table table{
        {EncodeArray::slopes, "slopes", "(H)", "m_h: 2^(-8h/H), h = 1..H (BLOOM's for other H)",
         slopes_stream},
        {EncodeArray::bias, "bias", "(H, n, n)", "-m_h |i - j| (default)", bias_stream}};
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
        case Scheme::rope:
            return rope_table();
        case Scheme::alibi:
            return alibi_table();
        case Scheme::t5:
            return t5_table();
        case Scheme::none:
        case Scheme::sinusoidal:
            break;
    }
    return none;
}

const char* scheme_name(Scheme s) {
    return s == Scheme::sinusoidal ? "sinusoidal"
           : s == Scheme::rope     ? "rope"
           : s == Scheme::alibi    ? "alibi"
                                   : "t5";
}

}  // namespace attn::cli
