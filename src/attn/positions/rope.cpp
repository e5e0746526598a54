#include "attn/positions/rope.hpp"

#include "attn/positions/parameter_error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include <quadmath.h>

namespace attn::positions {

namespace {

__extension__ typedef __float128 Quad;

DoubleDouble to_dd(Quad v) {
    const double hi = static_cast<double>(v);
    return fast_two_sum(hi, static_cast<double>(v - static_cast<Quad>(hi)));
}

std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

[[noreturn]] void fail(const std::string& parameter, const std::string& detail) {
    throw ParameterError(parameter, detail);
}

bool finite_above(const std::optional<double>& v, double low) {
    return v && std::isfinite(*v) && *v > low;
}

// inv_freq (d/2) in quad for sequence length L (dynamic only).
std::vector<Quad> quad_inv_freq(const RopeParameters& p, double L, Quad& base_used) {
    const std::size_t h = p.d / 2;
    const Quad d = static_cast<Quad>(p.d), pi = acosq(static_cast<Quad>(-1));
    Quad b = static_cast<Quad>(p.base);
    if (p.scaling == RopeScaling::dynamic) {
        const Quad F = static_cast<Quad>(*p.factor);
        const Quad M = static_cast<Quad>(*p.original_max_position_embeddings);
        const Quad length = static_cast<Quad>(L);
        if (length > M) b *= powq(F * length / M - (F - 1), d / (d - 2));
    }
    base_used = b;
    std::vector<Quad> f(h);
    for (std::size_t j = 0; j < h; ++j) f[j] = powq(b, -static_cast<Quad>(2 * j) / d);
    switch (p.scaling) {
        case RopeScaling::none:
        case RopeScaling::dynamic:
            break;
        case RopeScaling::linear:
            for (Quad& v : f) v /= static_cast<Quad>(*p.factor);
            break;
        case RopeScaling::yarn: {
            const Quad F = static_cast<Quad>(*p.factor);
            const Quad M = static_cast<Quad>(*p.original_max_position_embeddings);
            const Quad fast = static_cast<Quad>(p.beta_fast.value_or(32.0));
            const Quad slow = static_cast<Quad>(p.beta_slow.value_or(1.0));
            auto correction = [&](Quad beta) {
                return d * logq(M / (2 * pi * beta)) / (2 * logq(b));
            };
            Quad low = correction(fast), high = correction(slow);
            if (p.truncate) low = floorq(low), high = ceilq(high);
            if (low < 0) low = 0;
            if (high > d - 1) high = d - 1;
            if (low == high) high = static_cast<Quad>(static_cast<double>(high) + 0.001);
            for (std::size_t j = 0; j < h; ++j) {
                Quad ramp = (static_cast<Quad>(j) - low) / (high - low);
                ramp = ramp < 0 ? 0 : (ramp > 1 ? 1 : ramp);
                f[j] = f[j] / F * ramp + f[j] * (1 - ramp);
            }
            break;
        }
        case RopeScaling::longrope: {
            const Quad M = static_cast<Quad>(*p.original_max_position_embeddings);
            const std::vector<double>& e =
                static_cast<Quad>(L) > M ? p.long_factor : p.short_factor;
            for (std::size_t j = 0; j < h; ++j) f[j] /= static_cast<Quad>(e[j]);
            break;
        }
        case RopeScaling::llama3: {
            const Quad F = static_cast<Quad>(*p.factor);
            const Quad M = static_cast<Quad>(*p.original_max_position_embeddings);
            const Quad lo = static_cast<Quad>(*p.low_freq_factor);
            const Quad hi = static_cast<Quad>(*p.high_freq_factor);
            for (Quad& v : f) {
                const Quad wavelength = 2 * pi / v;
                if (wavelength < M / hi) continue;
                if (wavelength > M / lo) {
                    v /= F;
                    continue;
                }
                const Quad s = (M / wavelength - lo) / (hi - lo);
                v = (1 - s) * v / F + s * v;
            }
            break;
        }
    }
    return f;
}

// A of yarn and longrope (rope.hpp); 1 for the other types.
Quad quad_attention_factor(const RopeParameters& p) {
    if (p.scaling != RopeScaling::yarn && p.scaling != RopeScaling::longrope) return 1;
    if (p.attention_factor) return static_cast<Quad>(*p.attention_factor);
    const Quad F = static_cast<Quad>(*p.factor);
    if (p.scaling == RopeScaling::longrope) {
        const Quad M = static_cast<Quad>(*p.original_max_position_embeddings);
        return F <= 1 ? Quad(1) : sqrtq(1 + logq(F) / logq(M));
    }
    // g(s, m) = 0.1 m ln s + 1, 1 for s <= 1 (transformers' get_mscale)
    const auto g = [&](Quad m) { return F <= 1 ? Quad(1) : m * logq(F) / 10 + 1; };
    const double m = p.mscale.value_or(0.0), all = p.mscale_all_dim.value_or(0.0);
    if (m != 0.0 && all != 0.0) return g(static_cast<Quad>(m)) / g(static_cast<Quad>(all));
    return g(1);
}

}  // namespace

const char* scaling_name(RopeScaling s) {
    switch (s) {
        case RopeScaling::none:
            return "default";
        case RopeScaling::linear:
            return "linear";
        case RopeScaling::dynamic:
            return "dynamic";
        case RopeScaling::yarn:
            return "yarn";
        case RopeScaling::llama3:
            return "llama3";
        case RopeScaling::longrope:
            return "longrope";
    }
    return "?";
}

void validate(const RopeParameters& p) {
    const std::string type = scaling_name(p.scaling);
    if (p.d < 2 || p.d % 2 != 0)
        fail("d", std::to_string(p.d) + " is not an even number >= 2 (rotary pairs)");
    if (p.scaling == RopeScaling::dynamic && p.d < 4)
        fail("d", "dynamic scaling needs d >= 4 (its exponent is d/(d-2))");
    if (!(p.base > 1.0) || !std::isfinite(p.base))
        fail("base", number(p.base) + " is not a finite number greater than 1");
    const bool scaled = p.scaling != RopeScaling::none;
    const bool llama3 = p.scaling == RopeScaling::llama3, yarn = p.scaling == RopeScaling::yarn;
    const bool longrope = p.scaling == RopeScaling::longrope;
    const bool uses_m = p.scaling == RopeScaling::dynamic || yarn || llama3 || longrope;
    struct Use {
        const char* name;
        const std::optional<double>& value;
        bool used, required;
    };
    const Use uses[] = {
        {"factor", p.factor, scaled, scaled},
        {"original_max_position_embeddings", p.original_max_position_embeddings, uses_m, uses_m},
        {"low_freq_factor", p.low_freq_factor, llama3, llama3},
        {"high_freq_factor", p.high_freq_factor, llama3, llama3},
        {"beta_fast", p.beta_fast, yarn, false},
        {"beta_slow", p.beta_slow, yarn, false},
        {"attention_factor", p.attention_factor, yarn || longrope, false},
        {"mscale", p.mscale, yarn, false},
        {"mscale_all_dim", p.mscale_all_dim, yarn, false}};
    for (const Use& u : uses) {
        if (u.value && !u.used)
            fail(std::string(u.name), "not a parameter of " + type + " scaling");
        if (!u.value && u.required) fail(std::string(u.name), "required by " + type + " scaling");
        if (u.value && !std::isfinite(*u.value))
            fail(std::string(u.name), number(*u.value) + " is not a finite number");
    }
    if (!p.truncate && !yarn) fail("truncate", "not a parameter of " + type + " scaling");
    if (scaled && !finite_above(p.factor, 0.0))
        fail("factor", number(*p.factor) + " is not a number greater than 0");
    if (uses_m && !(*p.original_max_position_embeddings >= 1.0))
        fail("original_max_position_embeddings",
             number(*p.original_max_position_embeddings) + " is not at least 1");
    if (longrope && !p.attention_factor && *p.factor > 1.0 &&
        !(*p.original_max_position_embeddings > 1.0))
        fail("original_max_position_embeddings",
             "1 is not above 1 (longrope's attention factor divides by its logarithm)");
    if (llama3 && !finite_above(p.low_freq_factor, 0.0))
        fail("low_freq_factor", number(*p.low_freq_factor) + " is not greater than 0");
    if (llama3 && !(*p.high_freq_factor > *p.low_freq_factor))
        fail("high_freq_factor", number(*p.high_freq_factor) +
                                     " is not greater than low_freq_factor " +
                                     number(*p.low_freq_factor));
    if (p.beta_fast && !(*p.beta_fast > 0.0))
        fail("beta_fast", number(*p.beta_fast) + " is not greater than 0");
    if (p.beta_slow && !(*p.beta_slow > 0.0))
        fail("beta_slow", number(*p.beta_slow) + " is not greater than 0");
    if (p.attention_factor && !(*p.attention_factor > 0.0))
        fail("attention_factor", number(*p.attention_factor) + " is not greater than 0");
    if (p.mscale && !(*p.mscale >= 0.0))
        fail("mscale", number(*p.mscale) + " is not a number >= 0");
    if (p.mscale_all_dim && !(*p.mscale_all_dim >= 0.0))
        fail("mscale_all_dim", number(*p.mscale_all_dim) + " is not a number >= 0");
    const std::pair<const char*, const std::vector<double>*> lists[] = {
        {"short_factor", &p.short_factor}, {"long_factor", &p.long_factor}};
    for (const auto& [name, list] : lists) {
        if (!longrope) {
            if (!list->empty()) fail(std::string(name), "not a parameter of " + type + " scaling");
            continue;
        }
        if (list->size() != p.d / 2)
            fail(std::string(name),
                 std::to_string(list->size()) +
                     " numbers; longrope needs d/2 = " + std::to_string(p.d / 2));
        for (std::size_t j = 0; j < list->size(); ++j)
            if (!std::isfinite((*list)[j]) || !((*list)[j] > 0.0))
                fail(std::string(name), "element " + std::to_string(j) + " is " +
                                            number((*list)[j]) +
                                            ", not a finite number greater than 0");
    }
}

struct Rope::Derived {
    std::vector<DoubleDouble> inv_freq;
    DoubleDouble attention;
    double base;
};

Rope::Derived Rope::derive(const RopeParameters& p, std::int64_t start, std::size_t n) {
    validate(p);
    Quad base_used = 0;
    const double L = static_cast<double>(start) + static_cast<double>(n);
    const std::vector<Quad> f = quad_inv_freq(p, L, base_used);
    Derived out;
    for (Quad v : f) out.inv_freq.push_back(to_dd(v));
    out.attention = to_dd(quad_attention_factor(p));
    out.base = static_cast<double>(base_used);
    return out;
}

Rope::Rope(const RopeParameters& p, std::int64_t start, std::size_t n)
    : Rope(derive(p, start, n), p.d) {}

Rope::Rope(Derived&& derived, std::size_t d)
    : d_(d),
      inv_freq_(std::move(derived.inv_freq)),
      attention_(derived.attention),
      effective_base_(derived.base),
      rows_(inv_freq_, attention_) {}

std::vector<double> Rope::inv_freq() const {
    std::vector<double> out;
    for (const DoubleDouble& v : inv_freq_) out.push_back(to_double(v));
    return out;
}

void Rope::angles(std::int64_t first, std::size_t count, double* out) const {
    const std::size_t h = d_ / 2;
    for (std::size_t k = 0; k < count; ++k)
        for (std::size_t j = 0; j < h; ++j)
            out[k * h + j] =
                to_double(multiply(first + static_cast<std::int64_t>(k), inv_freq_[j]));
}

void Rope::cos_sin(std::int64_t first, std::size_t count, Layout layout, double* cos,
                   double* sin) const {
    const std::size_t h = d_ / 2;
    std::vector<double> s(count * h), c(count * h);
    rows_.fill(first, count, s.data(), c.data());
    for (std::size_t k = 0; k < count; ++k)
        for (std::size_t j = 0; j < h; ++j) {
            const std::size_t a = layout == Layout::split ? j : 2 * j;
            const std::size_t b = layout == Layout::split ? j + h : 2 * j + 1;
            cos[k * d_ + a] = cos[k * d_ + b] = c[k * h + j];
            sin[k * d_ + a] = sin[k * d_ + b] = s[k * h + j];
        }
}

void Rope::rotate(std::int64_t first, std::size_t count, Layout layout, const double* x,
                  double* out) const {
    const std::size_t h = d_ / 2;
    std::vector<double> s(count * h), c(count * h);
    rows_.fill(first, count, s.data(), c.data());
    // u * v + w * z with exact products, rounded once.
    auto dot = [](double u, double v, double w, double z) {
        const DoubleDouble p = two_product(u, v), q = two_product(w, z);
        const DoubleDouble t = two_sum(p.hi, q.hi);
        return t.hi + ((p.lo + q.lo) + t.lo);
    };
    for (std::size_t k = 0; k < count; ++k)
        for (std::size_t j = 0; j < h; ++j) {
            const std::size_t ia = k * d_ + (layout == Layout::split ? j : 2 * j);
            const std::size_t ib = k * d_ + (layout == Layout::split ? j + h : 2 * j + 1);
            const double a = x[ia], b = x[ib], cj = c[k * h + j], sj = s[k * h + j];
            out[ia] = dot(a, cj, -b, sj);
            out[ib] = dot(b, cj, a, sj);
        }
}

void Rope::rotate_all(std::int64_t start, std::size_t batch, std::size_t n, Layout layout,
                      const double* x, double* out) const {
    for (std::size_t b = 0; b < batch; ++b)
        for (std::size_t r = 0; r < n; r += block_rows()) {
            const std::size_t count = std::min(block_rows(), n - r), at = (b * n + r) * d_;
            rotate(start + static_cast<std::int64_t>(r), count, layout, x + at, out + at);
        }
}

}  // namespace attn::positions
