#include "attn/model/value_vectors.hpp"

#include <cmath>
#include <stdexcept>

#include "runtime/parallel.hpp"

namespace attn::model {

template <class T>
ValueVectors value_vectors(const std::vector<MatrixRef<T>>& v, std::size_t H,
                           const Projection<T>& output) {
    if (v.empty() || H % v.size() != 0)
        throw std::invalid_argument("value_vectors: the K/V heads must divide the query heads");
    const std::size_t G = v.size(), n = v[0].rows, hd = v[0].cols, d = output.out();
    if (output.in() != H * hd)
        throw std::invalid_argument("value_vectors: the output projection is not (H hd, d)");
    ValueVectors f;
    f.n = n;
    f.heads = H;
    f.norms.assign(n * H, 0.0);
    f.gram.assign(n * H * H, 0.0);
    const bool in_out = output.layout == WeightLayout::in_out;
    const auto w = [&](std::size_t r, std::size_t c) {  // W_O (H hd, d) as (in, out)
        return static_cast<double>(in_out ? output.weight.data[r * output.weight.stride + c]
                                          : output.weight.data[c * output.weight.stride + r]);
    };
    parallel_for(n, 1, [&](std::size_t begin, std::size_t end) {
        std::vector<double> fj(H * d);  // f_h(x_j) for every head (H, d)
        for (std::size_t j = begin; j < end; ++j) {
            std::fill(fj.begin(), fj.end(), 0.0);
            for (std::size_t h = 0; h < H; ++h) {
                const MatrixRef<T>& vg = v[h / (H / G)];
                double* out = &fj[h * d];
                for (std::size_t e = 0; e < hd; ++e) {
                    const double x = static_cast<double>(vg.data[j * vg.stride + e]);
                    for (std::size_t c = 0; c < d; ++c) out[c] += x * w(h * hd + e, c);
                }
            }
            for (std::size_t a = 0; a < H; ++a)
                for (std::size_t b = a; b < H; ++b) {
                    double s = 0;
                    for (std::size_t c = 0; c < d; ++c) s += fj[a * d + c] * fj[b * d + c];
                    f.gram[(j * H + a) * H + b] = f.gram[(j * H + b) * H + a] = s;
                }
            for (std::size_t h = 0; h < H; ++h)
                f.norms[j * H + h] = std::sqrt(f.gram[(j * H + h) * H + h]);
        }
    });
    return f;
}

template <class T>
std::vector<double> value_weights(const ValueVectors& f, const std::vector<const T*>& weights) {
    const std::size_t n = f.n, H = f.heads;
    if (weights.size() != H) throw std::invalid_argument("value_weights: one matrix per head");
    std::vector<double> out(n * n);
    parallel_for(n, 1, [&](std::size_t begin, std::size_t end) {
        std::vector<double> a(H);
        for (std::size_t i = begin; i < end; ++i) {
            double row = 0;
            for (std::size_t j = 0; j < n; ++j) {
                for (std::size_t h = 0; h < H; ++h)
                    a[h] = static_cast<double>(weights[h][i * n + j]);
                const double* g = &f.gram[j * H * H];
                double s = 0;
                for (std::size_t x = 0; x < H; ++x)
                    for (std::size_t y = 0; y < H; ++y) s += a[x] * a[y] * g[x * H + y];
                row += out[i * n + j] = std::sqrt(std::max(s, 0.0));
            }
            if (row > 0 || std::isnan(row))
                for (std::size_t j = 0; j < n; ++j) out[i * n + j] /= row;
        }
    });
    return out;
}

template ValueVectors value_vectors(const std::vector<MatrixRef<float>>&, std::size_t,
                                    const Projection<float>&);
template ValueVectors value_vectors(const std::vector<MatrixRef<double>>&, std::size_t,
                                    const Projection<double>&);
template std::vector<double> value_weights(const ValueVectors&, const std::vector<const float*>&);
template std::vector<double> value_weights(const ValueVectors&, const std::vector<const double*>&);

}  // namespace attn::model
