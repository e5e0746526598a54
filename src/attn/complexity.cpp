#include "attn/complexity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/memory_budget.hpp"

namespace attn {

namespace {

using u64 = std::uint64_t;

std::string str(std::string_view s) {
    return std::string(s);
}

// Exact counts: 64-bit products and sums, runtime::SizeOverflow (an std::overflow_error)
// naming the count when one does not fit.
constexpr auto mul = runtime::checked_mul;
constexpr auto add = runtime::checked_add;

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

}  // namespace attn
