#include "attn/complexity.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <system_error>

#include <xtensor-blas/xlinalg.hpp>

namespace attn {

namespace {

using u64 = std::uint64_t;

std::string str(std::string_view s) {
    return std::string(s);
}

u64 mul(u64 a, u64 b, std::string_view what) {
    u64 out = 0;
    if (__builtin_mul_overflow(a, b, &out))
        throw std::overflow_error(str(what) + " does not fit in 64 bits");
    return out;
}

u64 add(u64 a, u64 b, std::string_view what) {
    u64 out = 0;
    if (__builtin_add_overflow(a, b, &out))
        throw std::overflow_error(str(what) + " does not fit in 64 bits");
    return out;
}

u64 ceil_div(u64 a, u64 b) {
    return a / b + (a % b != 0 ? 1 : 0);
}

bool is_attention(Layer layer) {
    return layer == Layer::self_attention || layer == Layer::restricted_self_attention;
}

// sum_{i=0}^{n-1} min(i, a) = m(m+1)/2 + m(n-1-m), m = min(a, n-1); n >= 1.
u64 sum_min(u64 n, u64 a, std::string_view what) {
    const u64 m = std::min(a, n - 1);
    // m(m+1)/2: halve the even factor first so the product is exact.
    const u64 tri = (m % 2 == 0) ? mul(m / 2, m + 1, what) : mul(m, (m + 1) / 2, what);
    return add(tri, mul(m, n - 1 - m, what), what);
}

// (query, key) pairs of restricted attention: n + S(floor(r/2)) + S(ceil(r/2)).
u64 restricted_pairs(u64 n, u64 r) {
    constexpr std::string_view what = "restricted_self_attention pair count";
    const u64 left = r / 2;
    const u64 right = r - left;
    return add(n, add(sum_min(n, left, what), sum_min(n, right, what), what), what);
}

// Checked 4 n d^2 of W_q, W_k, W_v, W_o.
u64 projection_multiply_adds(const LayerSizes& s, std::string_view what) {
    return mul(4, mul(s.n, mul(s.d, s.d, what), what), what);
}

}  // namespace

std::string_view layer_name(Layer layer) {
    switch (layer) {
        case Layer::convolution:
            return "convolution";
        case Layer::dilated_convolution:
            return "dilated_convolution";
        case Layer::recurrent:
            return "recurrent";
        case Layer::self_attention:
            return "self_attention";
        case Layer::restricted_self_attention:
            return "restricted_self_attention";
    }
    throw std::invalid_argument("layer_name: unknown layer value");
}

Layer parse_layer(std::string_view name) {
    for (Layer layer : kLayers)
        if (layer_name(layer) == name) return layer;
    std::string known;
    for (Layer layer : kLayers) known += (known.empty() ? "" : ", ") + str(layer_name(layer));
    throw std::invalid_argument("unknown layer '" + str(name) + "' (known: " + known + ")");
}

const std::array<SymbolicRow, 5>& symbolic_table() {
    static const std::array<SymbolicRow, 5> table = {{
        {Layer::convolution, "O(k n d^2)", "O(1)", "O(n/k)"},
        {Layer::dilated_convolution, "O(k n d^2)", "O(1)", "O(log_k(n))"},
        {Layer::recurrent, "O(n d^2)", "O(n)", "O(n)"},
        {Layer::self_attention, "O(n^2 d)", "O(1)", "O(1)"},
        {Layer::restricted_self_attention, "O(r n d)", "O(1)", "O(n/r)"},
    }};
    return table;
}

void validate_sizes(const LayerSizes& s) {
    if (s.n == 0) throw std::invalid_argument("n must be at least 1 (got 0)");
    if (s.d == 0) throw std::invalid_argument("d must be at least 1 (got 0)");
    if (s.k == 0) throw std::invalid_argument("k must be at least 1 (got 0)");
}

std::uint64_t multiply_adds(Layer layer, const LayerSizes& s) {
    validate_sizes(s);
    const std::string what = str(layer_name(layer)) + " multiply_adds";
    u64 count = 0;
    switch (layer) {
        case Layer::convolution:
        case Layer::dilated_convolution:  // n k d^2
            count = mul(s.n, mul(s.k, mul(s.d, s.d, what), what), what);
            break;
        case Layer::recurrent:  // 2 n d^2
            count = mul(2, mul(s.n, mul(s.d, s.d, what), what), what);
            break;
        case Layer::self_attention:  // 2 n^2 d
            count = mul(2, mul(mul(s.n, s.n, what), s.d, what), what);
            break;
        case Layer::restricted_self_attention:  // 2 d p
            count = mul(2, mul(s.d, restricted_pairs(s.n, s.r), what), what);
            break;
    }
    if (s.with_projections && is_attention(layer))
        count = add(count, projection_multiply_adds(s, what), what);
    return count;
}

std::uint64_t sequential_steps(Layer layer, const LayerSizes& s) {
    validate_sizes(s);
    return layer == Layer::recurrent ? s.n : 1;
}

std::optional<std::uint64_t> maximum_path_length(Layer layer, const LayerSizes& s) {
    validate_sizes(s);
    if (s.n == 1) return 0;    // no pair of distinct positions
    const u64 span = s.n - 1;  // distance between the first and the last token
    switch (layer) {
        case Layer::convolution:
            if (s.k == 1) return std::nullopt;
            return ceil_div(span, s.k - 1);
        case Layer::dilated_convolution: {
            if (s.k == 1) return std::nullopt;
            u64 layers = 0;
            u64 width = 1;  // k^layers, the receptive field of `layers` layers
            while (width < s.n) {
                ++layers;
                if (width > std::numeric_limits<u64>::max() / s.k) break;  // k^layers > n
                width *= s.k;
            }
            return layers;
        }
        case Layer::recurrent:
            return span;
        case Layer::self_attention:
            return 1;
        case Layer::restricted_self_attention:
            if (s.r == 0) return std::nullopt;
            return ceil_div(span, s.r);
    }
    throw std::invalid_argument("maximum_path_length: unknown layer value");
}

std::uint64_t activation_floats(Layer layer, const LayerSizes& s) {
    validate_sizes(s);
    const std::string what = str(layer_name(layer)) + " activation_floats";
    const u64 nd = mul(s.n, s.d, what);
    u64 count = 0;
    switch (layer) {
        case Layer::convolution:
        case Layer::dilated_convolution:
        case Layer::recurrent:
            count = nd;
            break;
        case Layer::self_attention:
            count = add(mul(s.n, s.n, what), nd, what);
            break;
        case Layer::restricted_self_attention:
            count = add(restricted_pairs(s.n, s.r), nd, what);
            break;
    }
    if (s.with_projections && is_attention(layer)) count = add(count, mul(4, nd, what), what);
    return count;
}

LayerCounts layer_counts(Layer layer, const LayerSizes& sizes) {
    return {layer,
            sizes,
            multiply_adds(layer, sizes),
            sequential_steps(layer, sizes),
            maximum_path_length(layer, sizes),
            activation_floats(layer, sizes)};
}

// ---------------------------------------------------------------------------------------
// Sweeps

namespace {

[[noreturn]] void sweep_error(std::string_view spec, const std::string& problem) {
    throw std::invalid_argument("sweep '" + str(spec) + "': " + problem);
}

// A decimal integer >= 1, the whole of `text`.
u64 parse_value(std::string_view spec, std::string_view text, std::string_view role) {
    if (text.empty()) sweep_error(spec, "empty " + str(role));
    if (text.front() == '-') sweep_error(spec, str(role) + " '" + str(text) + "' is negative");
    u64 value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range)
        sweep_error(spec, str(role) + " '" + str(text) + "' is larger than 2^64-1");
    if (ec != std::errc{} || end != text.data() + text.size())
        sweep_error(spec, str(role) + " '" + str(text) + "' is not a decimal integer");
    if (value == 0) sweep_error(spec, str(role) + " is 0; values must be at least 1");
    return value;
}

void push_point(std::string_view spec, std::vector<u64>& values, u64 value,
                std::size_t max_points) {
    if (values.size() == max_points)
        sweep_error(spec, "more than " + std::to_string(max_points) + " points");
    values.push_back(value);
}

}  // namespace

Sweep parse_sweep(std::string_view spec, std::size_t max_points) {
    const std::size_t eq = spec.find('=');
    if (eq == std::string_view::npos)
        sweep_error(spec, "expected <var>=<values>, e.g. n=16:65536:x2 or n=16,32,64");
    Sweep sweep;
    sweep.variable = str(spec.substr(0, eq));
    if (sweep.variable != "n" && sweep.variable != "d" && sweep.variable != "k" &&
        sweep.variable != "r")
        sweep_error(spec, "unknown variable '" + sweep.variable + "' (known: n, d, k, r)");
    const std::string_view body = spec.substr(eq + 1);
    if (body.empty()) sweep_error(spec, "no values after '='");

    if (body.find(':') == std::string_view::npos) {  // plain list
        std::size_t pos = 0;
        while (true) {
            const std::size_t comma = body.find(',', pos);
            const std::string_view item = body.substr(pos, comma - pos);
            push_point(spec, sweep.values, parse_value(spec, item, "value"), max_points);
            if (comma == std::string_view::npos) break;
            pos = comma + 1;
        }
        return sweep;
    }

    // start:stop:step
    const std::size_t c1 = body.find(':');
    const std::size_t c2 = body.find(':', c1 + 1);
    if (c2 == std::string_view::npos || body.find(':', c2 + 1) != std::string_view::npos)
        sweep_error(spec, "a range is start:stop:xF or start:stop:+S");
    if (body.find(',') != std::string_view::npos)
        sweep_error(spec, "a range and a list cannot be mixed");
    const u64 start = parse_value(spec, body.substr(0, c1), "start");
    const u64 stop = parse_value(spec, body.substr(c1 + 1, c2 - c1 - 1), "stop");
    const std::string_view step = body.substr(c2 + 1);
    if (step.empty() || (step.front() != 'x' && step.front() != '+'))
        sweep_error(spec, "step '" + str(step) + "' must be xF (multiply) or +S (add)");
    const bool multiply = step.front() == 'x';
    const u64 by = parse_value(spec, step.substr(1), multiply ? "factor" : "step");
    if (multiply && by == 1) sweep_error(spec, "factor x1 never advances; use x2 or more");
    if (stop < start)
        sweep_error(spec, "empty range: stop " + std::to_string(stop) + " < start " +
                              std::to_string(start));

    u64 value = start;
    while (true) {
        push_point(spec, sweep.values, value, max_points);
        u64 next = 0;
        const bool overflow = multiply ? __builtin_mul_overflow(value, by, &next)
                                       : __builtin_add_overflow(value, by, &next);
        if (overflow || next > stop) break;
        value = next;
    }
    return sweep;
}

// ---------------------------------------------------------------------------------------
// Crossovers and fits

std::uint64_t attention_crossover(Layer other, std::uint64_t d, std::uint64_t k,
                                  bool with_projections) {
    if (d == 0) throw std::invalid_argument("d must be at least 1 (got 0)");
    if (k == 0) throw std::invalid_argument("k must be at least 1 (got 0)");
    u64 c = 0;  // other = c n d^2
    switch (other) {
        case Layer::recurrent:
            c = 2;
            break;
        case Layer::convolution:
        case Layer::dilated_convolution:
            c = k;
            break;
        default:
            throw std::invalid_argument(
                "attention_crossover: compares self_attention with "
                "recurrent, convolution or dilated_convolution, not " +
                str(layer_name(other)));
    }
    const u64 p = with_projections ? 4 : 0;  // attention = 2 n^2 d + p n d^2
    if (c <= p) return 1;
    // n > (c - p) d / 2  <=>  n >= floor((c - p) d / 2) + 1
    return add(mul(c - p, d, "attention_crossover") / 2, 1, "attention_crossover");
}

double fit_exponent(std::span<const double> xs, std::span<const double> ys) {
    if (xs.size() != ys.size())
        throw std::invalid_argument("fit_exponent: " + std::to_string(xs.size()) +
                                    " x values but " + std::to_string(ys.size()) + " y values");
    if (xs.size() < 2) throw std::invalid_argument("fit_exponent: needs at least 2 points");
    const std::size_t m = xs.size();
    std::vector<double> lx(m), ly(m);
    for (std::size_t i = 0; i < m; ++i) {
        if (!(xs[i] > 0.0) || !std::isfinite(xs[i]) || !(ys[i] > 0.0) || !std::isfinite(ys[i]))
            throw std::invalid_argument("fit_exponent: point " + std::to_string(i) +
                                        " is not positive and finite");
        lx[i] = std::log(xs[i]);
        ly[i] = std::log(ys[i]);
    }
    // b = sum (lx - mean_x)(ly - mean_y) / sum (lx - mean_x)^2 (centred: fewer cancellations)
    double mean_x = 0.0, mean_y = 0.0;
    for (std::size_t i = 0; i < m; ++i) mean_x += lx[i], mean_y += ly[i];
    mean_x /= double(m);
    mean_y /= double(m);
    double sxy = 0.0, sxx = 0.0;
    for (std::size_t i = 0; i < m; ++i) {
        sxy += (lx[i] - mean_x) * (ly[i] - mean_y);
        sxx += (lx[i] - mean_x) * (lx[i] - mean_x);
    }
    if (sxx == 0.0) throw std::invalid_argument("fit_exponent: all x values are equal");
    return sxy / sxx;
}

// ---------------------------------------------------------------------------------------
// Kernels

namespace {

using Matrix = xt::xtensor<float, 2>;

// xt::blas passes dimensions as int (blas_index_t).
void check_blas_dim(std::uint64_t value, std::string_view what) {
    if (value > u64(std::numeric_limits<int>::max()))
        throw std::invalid_argument(str(what) + " = " + std::to_string(value) +
                                    " exceeds the BLAS limit 2^31-1");
}

// Row-wise softmax of S (n, m) in place, max subtracted; every row has a finite entry.
void softmax_rows(Matrix& S) {
    const std::size_t n = S.shape(0), m = S.shape(1);
    for (std::size_t i = 0; i < n; ++i) {
        float* row = S.data() + i * m;
        const float max = *std::max_element(row, row + m);
        float sum = 0.0f;
        for (std::size_t j = 0; j < m; ++j) sum += (row[j] = std::exp(row[j] - max));
        const float inv = 1.0f / sum;
        for (std::size_t j = 0; j < m; ++j) row[j] *= inv;
    }
}

}  // namespace

xt::xtensor<float, 2> convolution_forward(const xt::xtensor<float, 2>& X,
                                          const xt::xtensor<float, 2>& W, std::size_t k,
                                          std::size_t dilation) {
    const std::size_t n = X.shape(0), d = X.shape(1);
    if (k == 0 || dilation == 0)
        throw std::invalid_argument("convolution_forward: k and dilation must be at least 1");
    const u64 kd = mul(k, d, "convolution_forward: k * d");
    if (W.shape(0) != kd)
        throw std::invalid_argument("convolution_forward: W has " + std::to_string(W.shape(0)) +
                                    " rows, k * d = " + std::to_string(kd));
    check_blas_dim(n, "n");
    check_blas_dim(kd, "k * d");
    check_blas_dim(W.shape(1), "output channels");
    const u64 reach = mul(k - 1, dilation, "convolution_forward: (k-1) * dilation");
    if (reach > u64(std::numeric_limits<std::int64_t>::max() / 2))
        throw std::invalid_argument("convolution_forward: (k-1) * dilation is too large");
    const std::int64_t pad = std::int64_t(reach / 2);  // "same": floor((k-1) dilation / 2) left

    Matrix cols = xt::zeros<float>({n, std::size_t(kd)});  // (n, k*d), zeros = padding
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 0; t < k; ++t) {
            const std::int64_t src = std::int64_t(i) - pad + std::int64_t(t * dilation);
            if (src < 0 || src >= std::int64_t(n)) continue;
            const float* from = X.data() + std::size_t(src) * d;
            std::copy(from, from + d, cols.data() + i * kd + t * d);
        }
    Matrix Y = xt::linalg::dot(cols, W);  // (n, k*d) x (k*d, d_out) -> (n, d_out)
    return Y;
}

xt::xtensor<float, 2> recurrent_forward(const xt::xtensor<float, 2>& X,
                                        const xt::xtensor<float, 2>& W,
                                        const xt::xtensor<float, 2>& U) {
    const std::size_t n = X.shape(0), d = X.shape(1);
    if (W.shape(0) != d || W.shape(1) != d || U.shape(0) != d || U.shape(1) != d)
        throw std::invalid_argument("recurrent_forward: W and U must be d x d, d = " +
                                    std::to_string(d));
    check_blas_dim(d, "d");
    Matrix H({n, d});
    xt::xtensor<float, 1> h = xt::zeros<float>({d});  // h_0 = 0
    xt::xtensor<float, 1> x = xt::zeros<float>({d});
    xt::xtensor<float, 1> a = xt::zeros<float>({d});
    for (std::size_t t = 0; t < n; ++t) {
        std::copy(X.data() + t * d, X.data() + (t + 1) * d, x.data());  // owning x_t for gemv
        xt::blas::gemv(U, x, a);                                        // a = U x_t
        xt::blas::gemv(W, h, a, false, 1.0f, 1.0f);                     // a += W h_{t-1}
        for (std::size_t j = 0; j < d; ++j) h(j) = std::tanh(a(j));
        std::copy(h.data(), h.data() + d, H.data() + t * d);
    }
    return H;
}

xt::xtensor<float, 2> self_attention_forward(const xt::xtensor<float, 2>& Q,
                                             const xt::xtensor<float, 2>& K,
                                             const xt::xtensor<float, 2>& V) {
    const std::size_t n = Q.shape(0), d = Q.shape(1), m = K.shape(0);
    if (K.shape(1) != d || V.shape(0) != m || m == 0)
        throw std::invalid_argument(
            "self_attention_forward: Q (n, d), K (m, d), V (m, d_v), m >= 1");
    check_blas_dim(n, "n");
    check_blas_dim(m, "m");
    check_blas_dim(d, "d");
    check_blas_dim(V.shape(1), "d_v");
    // dot(A, transpose(A)) takes a SYRK path sized from A alone (notes 3.3): give K its own
    // storage when the caller passed the same matrix twice.
    const Matrix K_copy = Q.data() == K.data() ? K : Matrix{};
    const Matrix& K_ = Q.data() == K.data() ? K_copy : K;
    Matrix S = xt::linalg::dot(Q, xt::transpose(K_));  // (n, d) x (d, m) -> (n, m)
    S *= 1.0f / std::sqrt(float(d));
    softmax_rows(S);
    Matrix Y = xt::linalg::dot(S, V);  // (n, m) x (m, d_v) -> (n, d_v)
    return Y;
}

xt::xtensor<float, 2> restricted_attention_forward(const xt::xtensor<float, 2>& Q,
                                                   const xt::xtensor<float, 2>& K,
                                                   const xt::xtensor<float, 2>& V,
                                                   std::uint64_t r) {
    const std::size_t n = Q.shape(0), d = Q.shape(1), dv = V.shape(1);
    if (K.shape(0) != n || K.shape(1) != d || V.shape(0) != n)
        throw std::invalid_argument("restricted_attention_forward: Q, K (n, d), V (n, d_v)");
    const u64 left = r / 2, right = r - left;  // window [i - left, i + right] within [0, n)
    const float scale = 1.0f / std::sqrt(float(d));
    Matrix Y = xt::zeros<float>({n, dv});
    std::vector<float> w;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t lo = i >= left ? i - std::size_t(left) : 0;
        const std::size_t hi = right >= n - 1 - i ? n - 1 : i + std::size_t(right);
        w.assign(hi - lo + 1, 0.0f);
        const float* q = Q.data() + i * d;
        for (std::size_t j = lo; j <= hi; ++j) {
            const float* kj = K.data() + j * d;
            float dot = 0.0f;
            for (std::size_t c = 0; c < d; ++c) dot += q[c] * kj[c];
            w[j - lo] = dot * scale;
        }
        const float max = *std::max_element(w.begin(), w.end());
        float sum = 0.0f;
        for (float& x : w) sum += (x = std::exp(x - max));
        float* y = Y.data() + i * dv;
        for (std::size_t j = lo; j <= hi; ++j) {
            const float p = w[j - lo] / sum;
            const float* vj = V.data() + j * dv;
            for (std::size_t c = 0; c < dv; ++c) y[c] += p * vj[c];
        }
    }
    return Y;
}

// ---------------------------------------------------------------------------------------
// Measurement

namespace {

// Deterministic fill: splitmix64, top 24 bits -> uniform in [-scale, scale).
Matrix random_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed, float scale) {
    Matrix M({rows, cols});
    std::uint64_t state = seed;
    for (float& x : M) {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x = scale * (float(z >> 40) * (2.0f / 16777216.0f) - 1.0f);
    }
    return M;
}

// Floats the kernel of `layer` holds at once (inputs, weights, intermediates, output).
u64 working_floats(Layer layer, const LayerSizes& s) {
    const std::string what = "working set of " + str(layer_name(layer));
    const u64 nd = mul(s.n, s.d, what), dd = mul(s.d, s.d, what);
    const u64 x5 = mul(5, nd, what);  // X, Q, K, V, attention output
    switch (layer) {
        case Layer::convolution:
        case Layer::dilated_convolution: {  // X, cols (n, k d), W (k d, d), Y
            const u64 kd = mul(s.k, s.d, what);
            return add(add(mul(2, nd, what), mul(s.n, kd, what), what), mul(kd, s.d, what), what);
        }
        case Layer::recurrent:
            return add(mul(2, nd, what), add(mul(2, dd, what), 3 * s.d, what), what);
        case Layer::self_attention:  // X, Q, K, V, S (n, n), output, projected output, 4 W
            return add(add(x5, nd, what), add(mul(s.n, s.n, what), mul(4, dd, what), what), what);
        case Layer::restricted_self_attention:
            return add(add(x5, nd, what), add(std::min(s.n, s.r + 1), mul(4, dd, what), what),
                       what);
    }
    throw std::invalid_argument("working_floats: unknown layer value");
}

}  // namespace

std::uint64_t measurement_bytes(Layer layer, const LayerSizes& s) {
    return mul(working_floats(layer, s), sizeof(float), "working set bytes");
}

Measurement measure_layer(Layer layer, const LayerSizes& s, std::size_t repeat,
                          std::uint64_t max_bytes) {
    validate_sizes(s);
    if (repeat == 0) throw std::invalid_argument("repeat must be at least 1 (got 0)");
    const u64 ma = multiply_adds(layer, s);
    check_blas_dim(s.n, "n");
    check_blas_dim(s.d, "d");
    if (layer == Layer::convolution || layer == Layer::dilated_convolution)
        check_blas_dim(mul(s.k, s.d, "k * d"), "k * d");
    const u64 bytes = measurement_bytes(layer, s);
    if (bytes > max_bytes)
        throw std::invalid_argument("measuring " + str(layer_name(layer)) + " needs " +
                                    std::to_string(bytes) + " bytes, more than the limit of " +
                                    std::to_string(max_bytes));

    const std::size_t n = s.n, d = s.d, k = s.k;
    const float w_scale = 1.0f / std::sqrt(float(d));  // keeps W x and tanh out of saturation
    const Matrix X = random_matrix(n, d, 1, 1.0f);
    std::function<float()> run;  // one forward pass; returns one output value to keep it live
    switch (layer) {
        case Layer::convolution:
        case Layer::dilated_convolution: {
            const std::size_t dilation = layer == Layer::dilated_convolution ? k : 1;
            const Matrix W = random_matrix(k * d, d, 2, w_scale / std::sqrt(float(k)));
            run = [X, W, k, dilation] { return convolution_forward(X, W, k, dilation)(0, 0); };
            break;
        }
        case Layer::recurrent: {
            const Matrix W = random_matrix(d, d, 3, w_scale);
            const Matrix U = random_matrix(d, d, 4, w_scale);
            run = [X, W, U] { return recurrent_forward(X, W, U)(0, 0); };
            break;
        }
        case Layer::self_attention:
        case Layer::restricted_self_attention: {
            const bool restricted = layer == Layer::restricted_self_attention;
            const std::uint64_t r = s.r;
            const auto attend = [restricted, r](const Matrix& Q, const Matrix& K, const Matrix& V) {
                return restricted ? restricted_attention_forward(Q, K, V, r)
                                  : self_attention_forward(Q, K, V);
            };
            if (s.with_projections) {
                const Matrix Wq = random_matrix(d, d, 5, w_scale),
                             Wk = random_matrix(d, d, 6, w_scale),
                             Wv = random_matrix(d, d, 7, w_scale),
                             Wo = random_matrix(d, d, 8, w_scale);
                run = [X, Wq, Wk, Wv, Wo, attend] {
                    const Matrix Q = xt::linalg::dot(X, Wq);  // (n, d) x (d, d) -> (n, d)
                    const Matrix K = xt::linalg::dot(X, Wk);
                    const Matrix V = xt::linalg::dot(X, Wv);
                    const Matrix A = attend(Q, K, V);
                    const Matrix Y = xt::linalg::dot(A, Wo);
                    return Y(0, 0);
                };
            } else {  // Q, K, V given: three distinct matrices
                const Matrix K = random_matrix(n, d, 9, 1.0f), V = random_matrix(n, d, 10, 1.0f);
                run = [X, K, V, attend] { return attend(X, K, V)(0, 0); };
            }
            break;
        }
    }

    volatile float sink = run();  // warm-up: page faults, BLAS thread start, caches
    std::vector<double> seconds(repeat);
    for (double& t : seconds) {
        const auto start = std::chrono::steady_clock::now();
        sink = sink + run();
        const auto stop = std::chrono::steady_clock::now();
        t = std::chrono::duration<double>(stop - start).count();
    }
    std::sort(seconds.begin(), seconds.end());
    const double median = repeat % 2 == 1 ? seconds[repeat / 2]
                                          : 0.5 * (seconds[repeat / 2 - 1] + seconds[repeat / 2]);
    const double gflops = median > 0.0 ? 2.0 * double(ma) / median / 1e9 : 0.0;
    return {median, gflops, ma};
}

}  // namespace attn
