#include "attn/model/head_partial.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string_view>

namespace attn::model {

namespace {

constexpr double kExact = 9007199254740992.0;  // 2^53: a float64 count above it is not exact

[[noreturn]] void refuse(const char* member, const std::string& what) {
    throw PartialError(member, what);
}

/// Whether x is a whole number least <= x < 2^53.
bool whole(double x, double least) {
    return std::isfinite(x) && x >= least && x < kExact && x == std::floor(x);
}

std::string shape_text(const std::vector<std::size_t>& shape) {
    if (shape.size() == 1) return fmt::format("({},)", shape[0]);
    return fmt::format("({})", fmt::join(shape, ", "));
}

/// sums' column c: rows_previous .. abs_induction (6 groups of 3 patterns), then prompts, sink,
/// self, entropy, queries.
std::string sums_column(std::size_t c) {
    static constexpr std::array<const char*, 6> kGroups{"rows",          "rows_queries", "plain",
                                                        "plain_queries", "mul",          "abs"};
    static constexpr std::array<const char*, 5> kTail{"prompts", "sink", "self", "entropy",
                                                      "queries"};
    if (c < 18) return fmt::format("{}_{}", kGroups[c / 3], kPatternNames[c % 3]);
    return kTail[c - 18];
}

/// What sums' column c may hold: a count; a sum of weights (>= 0: A >= 0, entropy >= 0); mul's
/// sum of sum A*D / sum A, NaN once a prompt keeps no weight (one token, an exclusion: 0 / 0);
/// abs's sum of 1 - sum |A - D| / n (below 0 where D holds more ones than n).
enum class Column { count, sum, mul, abs };
Column sums_kind(std::size_t c) {
    if (c == 18 || c == 22 || (c < 18 && (c / 3 == 1 || c / 3 == 3))) return Column::count;
    if (c >= 12 && c < 15) return Column::mul;
    if (c >= 15 && c < 18) return Column::abs;
    return Column::sum;
}

}  // namespace

std::vector<std::size_t> partial_indices(const char* member, const PartialArray& a,
                                         std::size_t count) {
    if (a.shape.size() != 1 || a.values.empty())
        refuse(member, fmt::format("shape {}; a list (K,) of one or more {} expected",
                                   shape_text(a.shape), member));
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < a.values.size(); ++k) {
        const double v = a.values[k];
        if (!whole(v, 0) || v >= static_cast<double>(count) || (k > 0 && v <= a.values[k - 1]))
            refuse(member,
                   fmt::format("{} at index {}; whole numbers 0 .. {} increasing expected (the "
                               "model's {} {})",
                               v, k, count - 1, count, member));
        out.push_back(static_cast<std::size_t>(v));
    }
    return out;
}

std::array<double, kPartialSums> pack_head_sums(const HeadSums& s) {
    std::array<double, kPartialSums> v{};
    for (std::size_t p = 0; p < kPatterns; ++p) {
        v[p] = s.rows[p];
        v[3 + p] = static_cast<double>(s.rows_queries[p]);
        v[6 + p] = s.plain[p];
        v[9 + p] = static_cast<double>(s.plain_queries[p]);
        v[12 + p] = s.mul[p];
        v[15 + p] = s.abs[p];
    }
    v[18] = static_cast<double>(s.prompts);
    v[19] = s.sink;
    v[20] = s.self;
    v[21] = s.entropy;
    v[22] = static_cast<double>(s.queries);
    return v;
}

HeadSums unpack_head_sums(const double* v, const double* argmax, std::size_t width) {
    HeadSums s;
    const auto count = [](double x) { return static_cast<std::uint64_t>(x); };
    for (std::size_t p = 0; p < kPatterns; ++p) {
        s.rows[p] = v[p];
        s.rows_queries[p] = count(v[3 + p]);
        s.plain[p] = v[6 + p];
        s.plain_queries[p] = count(v[9 + p]);
        s.mul[p] = v[12 + p];
        s.abs[p] = v[15 + p];
    }
    s.prompts = count(v[18]);
    s.sink = v[19];
    s.self = v[20];
    s.entropy = v[21];
    s.queries = count(v[22]);
    for (std::size_t k = 0; k < width; ++k) s.argmax.push_back(count(argmax[k]));
    return s;
}

HeadPartial check_head_partial(const PartialArrays& a, const ModelConfig& c) {
    HeadPartial p;
    p.layers = partial_indices("layers", a.layers, c.num_layers);
    p.heads = partial_indices("heads", a.heads, c.num_heads);

    // prompts: (P) lengths adding up to the (N) ids, each id in the vocabulary
    const PartialArray& lengths = a.prompt_lengths;
    const PartialArray& ids = a.prompt_ids;
    if (lengths.shape.size() != 1)
        refuse("prompt_lengths",
               fmt::format("shape {}; a list (P,) expected", shape_text(lengths.shape)));
    if (ids.shape.size() != 1)
        refuse("prompt_ids", fmt::format("shape {}; a list (N,) expected", shape_text(ids.shape)));
    std::size_t total = 0, longest = 0;
    double queries = 0;  // of each head: the queries seeing >= 2 keys
    for (std::size_t k = 0; k < lengths.values.size(); ++k) {
        const double n = lengths.values[k];
        if (!whole(n, 1))
            refuse("prompt_lengths",
                   fmt::format("{} at index {}; a whole number of tokens >= 1 expected", n, k));
        if (n > static_cast<double>(ids.values.size() - total))
            refuse("prompt_ids",
                   fmt::format("{} ids; prompt_lengths adds up to more", ids.values.size()));
        const auto len = static_cast<std::size_t>(n);
        total += len;
        longest = std::max(longest, len);
        queries += static_cast<double>(c.causal ? len - 1 : (len >= 2 ? len : 0));
    }
    if (total != ids.values.size())
        refuse("prompt_ids",
               fmt::format("{} ids; the {} of prompt_lengths expected", ids.values.size(), total));
    for (std::size_t k = 0; k < ids.values.size(); ++k)
        if (!whole(ids.values[k], 0) || ids.values[k] >= static_cast<double>(c.vocab_size))
            refuse("prompt_ids",
                   fmt::format("{} at index {}; a token id 0 .. {} expected (c.json's "
                               "vocab_size {})",
                               ids.values[k], k, c.vocab_size - 1, c.vocab_size));
    for (std::size_t at = 0; const double n : lengths.values) {
        const auto first = ids.values.begin() + static_cast<std::ptrdiff_t>(at);
        p.prompts.emplace_back(first, first + static_cast<std::ptrdiff_t>(n));
        at += static_cast<std::size_t>(n);
    }

    // sums: (L H, 23), each column as its kind, prompts = P and queries as the lengths give
    const std::size_t heads = p.layers.size() * p.heads.size();
    const PartialArray& sums = a.sums;
    if (sums.shape != std::vector<std::size_t>{heads, kPartialSums})
        refuse("sums", fmt::format("shape {}; ({}, {}) expected (layers x heads, the 23 sums)",
                                   shape_text(sums.shape), heads, kPartialSums));
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t c = 0; c < kPartialSums; ++c) {
            const double v = sums.values[h * kPartialSums + c];
            const Column kind = sums_kind(c);
            const bool sum = std::isfinite(v) && v >= 0;
            const bool ok = kind == Column::count ? whole(v, 0)
                            : kind == Column::sum ? sum
                            : kind == Column::mul ? sum || std::isnan(v)
                                                  : std::isfinite(v);
            const char* expected = kind == Column::count ? "a count (whole number >= 0)"
                                   : kind == Column::sum ? "a finite sum >= 0"
                                   : kind == Column::mul ? "a finite sum >= 0 or nan"
                                                         : "a finite sum";
            if (!ok)
                refuse("sums", fmt::format("{} at row {}, column {} ({}); {} expected", v, h, c,
                                           sums_column(c), expected));
        }
    for (std::size_t h = 0; h < heads; ++h) {
        const double prompts = sums.values[h * kPartialSums + 18];
        const double counted = sums.values[h * kPartialSums + 22];
        if (prompts != static_cast<double>(p.prompts.size()))
            refuse(
                "sums",
                fmt::format("{} prompts at row {} (column 18); the {} of prompt_lengths expected",
                            prompts, h, p.prompts.size()));
        if (counted != queries)
            refuse("sums",
                   fmt::format(
                       "{} queries at row {} (column 22); the {} the prompt lengths give expected",
                       counted, h, queries));
    }
    p.sums = sums.values;

    // argmax: (L H, 2 longest - 1) counts, each row adding up to its head's queries
    const PartialArray& argmax = a.argmax;
    p.width = longest == 0 ? 1 : 2 * longest - 1;
    if (argmax.shape != std::vector<std::size_t>{heads, p.width})
        refuse("argmax",
               fmt::format("shape {}; ({}, {}) expected (layers x heads, offsets -{} .. {} of "
                           "the longest prompt)",
                           shape_text(argmax.shape), heads, p.width, (p.width - 1) / 2,
                           (p.width - 1) / 2));
    for (std::size_t h = 0; h < heads; ++h) {
        double row = 0;  // counts >= 0: once past queries (< 2^53), rounding keeps it past
        for (std::size_t k = 0; k < p.width; ++k) {
            const double v = argmax.values[h * p.width + k];
            if (!whole(v, 0))
                refuse("argmax",
                       fmt::format("{} at row {}, column {}; a count (whole number >= 0) expected",
                                   v, h, k));
            row += v;
        }
        if (row != queries)
            refuse("argmax", fmt::format("row {} adds up to {}; the {} queries of sums expected", h,
                                         row, queries));
    }
    p.argmax = argmax.values;
    return p;
}

}  // namespace attn::model
