#include "attn/rotation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace attn {

namespace {

// D_j = base^(2j/d) = 1 / w_j as d2l's PyTorch code computes it, in float32: the float32
// recipe of the sinusoidal P (see the top of rotation.hpp), not a second formula for w_j.
float divisor_f(std::size_t j, std::size_t d, double base) {
    const float exponent = static_cast<float>(2 * j) / static_cast<float>(d);
    return std::pow(static_cast<float>(base), exponent);  // powf
}

std::uint64_t magnitude(std::int64_t v) {
    return v < 0 ? std::uint64_t(0) - std::uint64_t(v) : std::uint64_t(v);
}

}  // namespace

double unit_roundoff(Precision p) {
    return p == Precision::float32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
}

double rotation_tolerance(Precision p, std::int64_t i, std::int64_t delta) {
    return unit_roundoff(p) * (16.0 + 4.0 * (static_cast<double>(magnitude(i)) +
                                             static_cast<double>(magnitude(delta))));
}

EncodingRows::EncodingRows(std::size_t d, double base, Precision precision, std::size_t max_block)
    : d_(d), precision_(precision) {
    if (d < 1) throw std::invalid_argument("d must be at least 1");
    if (!(base > 1.0) || !std::isfinite(base))
        throw std::invalid_argument("base must be a finite number greater than 1");
    if (precision == Precision::float64) {
        encoder_.emplace(d, base, positions::Layout::interleaved, max_block,
                         positions::Combine::extended);
        block_ = encoder_->block_rows();
    } else {
        divisor_.resize((d + 1) / 2);
        for (std::size_t j = 0; j < divisor_.size(); ++j) divisor_[j] = divisor_f(j, d, base);
        block_ = std::max<std::size_t>(1, max_block);
    }
}

std::size_t EncodingRows::block_rows() const {
    return block_;
}

void EncodingRows::fill(std::int64_t first, std::size_t count, double* out) const {
    if (count > block_) throw std::invalid_argument("EncodingRows::fill: count > block_rows()");
    if (encoder_) {
        encoder_->fill(first, count, out);
        return;
    }
    for (std::size_t k = 0; k < count; ++k) {
        const auto position = static_cast<float>(first + static_cast<std::int64_t>(k));
        double* row = out + k * d_;
        for (std::size_t j = 0; j < divisor_.size(); ++j) {
            const float a = position / divisor_[j];            // (1,) / (1,) in float32
            row[2 * j] = std::sin(a);                          // sinf
            if (2 * j + 1 < d_) row[2 * j + 1] = std::cos(a);  // cosf
        }
    }
}

PairRotation pair_rotation(std::int64_t delta, std::size_t j, std::size_t d, double base,
                           Precision precision) {
    if (precision == Precision::float32) {
        const float a = static_cast<float>(delta) / divisor_f(j, d, base);
        return {std::cos(a), std::sin(a)};
    }
    const long double a = static_cast<long double>(delta) * positions::pair_frequency_l(j, d, base);
    return {static_cast<double>(std::cos(a)), static_cast<double>(std::sin(a))};
}

void offset_matrix_row(std::int64_t delta, std::size_t r, std::size_t d, double base,
                       Precision precision, double* out) {
    std::fill(out, out + d, 0.0);
    if (d % 2 == 1 && r == d - 1) {  // the lone sine: no linear map from P[i]
        std::fill(out, out + d, std::numeric_limits<double>::quiet_NaN());
        return;
    }
    const std::size_t j = r / 2;
    const PairRotation R = pair_rotation(delta, j, d, base, precision);
    if (r % 2 == 0) {  // sin((i+delta)w) = cos(delta w) sin(i w) + sin(delta w) cos(i w)
        out[2 * j] = R.cos;
        out[2 * j + 1] = R.sin;
    } else {  // cos((i+delta)w) = -sin(delta w) sin(i w) + cos(delta w) cos(i w)
        out[2 * j] = -R.sin;
        out[2 * j + 1] = R.cos;
    }
}

xt::xtensor<double, 2> offset_matrix(std::int64_t delta, std::size_t d, double base,
                                     Precision precision) {
    xt::xtensor<double, 2> M = xt::zeros<double>({d, d});
    for (std::size_t r = 0; r < d; ++r)
        offset_matrix_row(delta, r, d, base, precision, M.data() + r * d);
    return M;
}

double dot_closed_form(std::int64_t delta, std::size_t d, double base) {
    long double sum = 0;
    for (std::size_t j = 0; j < d / 2; ++j)
        sum += std::cos(static_cast<long double>(delta) * positions::pair_frequency_l(j, d, base));
    return static_cast<double>(sum);
}

std::uint64_t scan_bytes(std::size_t d, const std::vector<std::int64_t>& offsets) {
    std::uint64_t max_abs = 0;
    for (std::int64_t o : offsets) max_abs = std::max(max_abs, magnitude(o));
    const std::uint64_t ring = (max_abs + 1) * d * sizeof(double);
    const std::uint64_t block = 256ull * d * sizeof(double);
    const std::uint64_t tables = 2ull * 256 * ((d + 1) / 2) * sizeof(long double);
    const std::uint64_t results =
        offsets.size() * (sizeof(OffsetResult) + (d / 2) * sizeof(PairError));
    return ring + block + tables + results;
}

namespace {

// One offset's rotation in the precision of the scan.
struct Rotations {
    std::vector<double> c, s;   // float64
    std::vector<float> cf, sf;  // float32
};

template <typename T>
double pair_residual(T c, T s, const double* pi, const double* pj, std::size_t j) {
    const T p0 = static_cast<T>(pi[2 * j]), p1 = static_cast<T>(pi[2 * j + 1]);
    const T y0 = c * p0 + s * p1;  // rotated in the precision (no FMA: -ffp-contract=off)
    const T y1 = c * p1 - s * p0;
    return std::max(std::fabs(static_cast<double>(y0) - pj[2 * j]),
                    std::fabs(static_cast<double>(y1) - pj[2 * j + 1]));
}

}  // namespace

std::vector<OffsetResult> scan_offsets(const ScanSpec& spec,
                                       const std::vector<std::int64_t>& offsets,
                                       const RowEdit& edit) {
    const std::size_t n = spec.n, d = spec.d, pairs = d / 2;
    if (d < 2) throw std::invalid_argument("d must be at least 2: a pair needs two columns");
    std::uint64_t max_abs = 0;
    for (std::int64_t o : offsets) {
        if (magnitude(o) >= n)
            throw std::invalid_argument(
                "offset " + std::to_string(o) +
                " leaves no pair of positions among n = " + std::to_string(n));
        max_abs = std::max(max_abs, magnitude(o));
    }
    const EncodingRows rows(d, spec.base, spec.precision, std::min<std::size_t>(n, 256));
    const std::size_t cap = static_cast<std::size_t>(max_abs) + 1;
    std::vector<double> ring(cap * d), block(rows.block_rows() * d);
    auto slot = [&](std::size_t r) { return &ring[(r % cap) * d]; };

    const bool f32 = spec.precision == Precision::float32;
    std::vector<Rotations> rot(offsets.size());
    std::vector<OffsetResult> res(offsets.size());
    for (std::size_t o = 0; o < offsets.size(); ++o) {
        res[o].delta = offsets[o];
        res[o].pairs.assign(pairs, PairError{-1.0, 0});  // the first i always sets it
        res[o].dot_closed = dot_closed_form(offsets[o], d, spec.base);
        res[o].dot_min = std::numeric_limits<double>::infinity();
        res[o].dot_max = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < pairs; ++j) {
            const PairRotation R = pair_rotation(offsets[o], j, d, spec.base, spec.precision);
            rot[o].c.push_back(R.cos);
            rot[o].s.push_back(R.sin);
            rot[o].cf.push_back(static_cast<float>(R.cos));
            rot[o].sf.push_back(static_cast<float>(R.sin));
        }
    }

    for (std::size_t r0 = 0; r0 < n; r0 += rows.block_rows()) {
        const std::size_t count = std::min(rows.block_rows(), n - r0);
        const std::int64_t first = spec.start + static_cast<std::int64_t>(r0);
        rows.fill(first, count, block.data());  // (count, d)
        if (edit) edit(first, count, block.data());
        for (std::size_t k = 0; k < count; ++k) {
            const std::size_t r = r0 + k;
            std::copy_n(&block[k * d], d, slot(r));
            for (std::size_t o = 0; o < offsets.size(); ++o) {
                const std::int64_t delta = offsets[o];
                const std::size_t a = static_cast<std::size_t>(magnitude(delta));
                if (r < a) continue;
                // Row r is the later of the two: i = r - delta for delta >= 0, i = r otherwise.
                const std::size_t ri = delta >= 0 ? r - a : r;
                const double* pi = slot(ri);
                const double* pj = slot(delta >= 0 ? r : r - a);
                const std::int64_t i = spec.start + static_cast<std::int64_t>(ri);
                OffsetResult& out = res[o];
                double worst = 0, dot = 0;
                for (std::size_t j = 0; j < pairs; ++j) {
                    const double e = f32 ? pair_residual(rot[o].cf[j], rot[o].sf[j], pi, pj, j)
                                         : pair_residual(rot[o].c[j], rot[o].s[j], pi, pj, j);
                    PairError& pe = out.pairs[j];
                    if (e > pe.max_error) pe.max_error = e, pe.at_i = i;
                    worst = std::max(worst, e);
                    dot += pi[2 * j] * pj[2 * j] + pi[2 * j + 1] * pj[2 * j + 1];
                }
                const double tol =
                    spec.tol > 0 ? spec.tol : rotation_tolerance(spec.precision, i, delta);
                const double ratio = worst / tol;
                if (out.checked == 0 || worst > out.max_error)
                    out.max_error = worst, out.at_i = i, out.tol_at_i = tol;
                if (out.checked == 0 || ratio > out.max_ratio)
                    out.max_ratio = ratio, out.ratio_i = i;
                if (dot < out.dot_min) out.dot_min = dot, out.dot_min_i = i;
                if (dot > out.dot_max) out.dot_max = dot, out.dot_max_i = i;
                const double de = std::fabs(dot - out.dot_closed);
                if (out.checked == 0 || de > out.dot_max_error)
                    out.dot_max_error = de, out.dot_error_i = i;
                ++out.checked;
            }
        }
    }
    return res;
}

OffsetResult worst_of(const std::vector<OffsetResult>& results) {
    OffsetResult w;
    bool first = true;
    for (const OffsetResult& r : results) {
        if (first || r.max_error > w.max_error)
            w.delta = r.delta, w.max_error = r.max_error, w.at_i = r.at_i, w.tol_at_i = r.tol_at_i;
        if (first || r.max_ratio > w.max_ratio) w.max_ratio = r.max_ratio, w.ratio_i = r.ratio_i;
        w.checked += r.checked;
        first = false;
    }
    return w;
}

std::vector<std::int64_t> magnitude_grid(std::int64_t up_to) {
    std::vector<std::int64_t> grid{0};
    for (std::int64_t decade = 10; decade <= up_to && decade > 0; decade *= 10) {
        for (std::int64_t m : {1, 2, 5})
            if (m * decade <= up_to) grid.push_back(m * decade);
        if (decade > std::numeric_limits<std::int64_t>::max() / 10) break;
    }
    if (grid.back() != up_to && up_to > 0) grid.push_back(up_to);
    return grid;
}

std::vector<SweepRow> sweep_positions(ScanSpec spec, const std::vector<std::int64_t>& offsets,
                                      std::int64_t up_to) {
    std::vector<SweepRow> out;
    for (std::int64_t position : magnitude_grid(up_to)) {
        SweepRow row;
        row.position = position;
        spec.start = position;
        spec.precision = Precision::float32;
        row.float32 = worst_of(scan_offsets(spec, offsets));
        spec.precision = Precision::float64;
        row.float64 = worst_of(scan_offsets(spec, offsets));
        out.push_back(row);
    }
    return out;
}

}  // namespace attn
