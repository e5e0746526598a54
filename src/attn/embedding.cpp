#include "attn/embedding.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include <xtensor/xmanipulation.hpp>

namespace attn {

xt::xtensor<float, 2> draw_projection(TorchGenerator& gen, std::size_t d_in, std::size_t d_out,
                                      ProjectionInit init) {
    if (d_in == 0 || d_out == 0)
        throw std::invalid_argument("draw_projection: d_in and d_out must be positive");
    if (init == ProjectionInit::rand) return torch_rand<float>(gen, d_in, d_out);   // (d_in, d_out)
    const TorchLinear<float> layer = torch_linear<float>(gen, d_in, d_out, false);  // (d_out, d_in)
    xt::xtensor<float, 2> w = xt::transpose(layer.weight);                          // (d_in, d_out)
    return w;
}

xt::xtensor<float, 2> draw_embedding_table(TorchGenerator& gen, std::uint64_t seed,
                                           std::size_t vocab, std::size_t dim) {
    gen.manual_seed(seed);
    return torch_embedding<float>(gen, vocab, dim);  // (vocab, dim)
}

template <class T>
xt::xtensor<T, 2> embed_rows(const xt::xtensor<T, 2>& table, const std::vector<std::size_t>& ids) {
    const std::size_t rows = table.shape(0), d = table.shape(1);
    xt::xtensor<T, 2> x = xt::xtensor<T, 2>::from_shape({ids.size(), d});  // (ids, d)
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] >= rows)
            throw std::invalid_argument("embed_rows: id " + std::to_string(ids[i]) +
                                        " is beyond the table's " + std::to_string(rows) + " rows");
        std::copy_n(table.data() + ids[i] * d, d, x.data() + i * d);
    }
    return x;
}
template xt::xtensor<float, 2> embed_rows<float>(const xt::xtensor<float, 2>&,
                                                 const std::vector<std::size_t>&);
template xt::xtensor<double, 2> embed_rows<double>(const xt::xtensor<double, 2>&,
                                                   const std::vector<std::size_t>&);

xt::xtensor<double, 2> word_table(
    const std::vector<std::string>& words,
    const std::function<std::optional<std::size_t>(const std::string&)>& row,
    std::span<const double> values, std::size_t d, bool random, TorchGenerator& gen,
    std::uint64_t seed, std::vector<std::string>& unknown) {
    xt::xtensor<double, 2> table = xt::zeros<double>({words.size(), d});  // (V, d)
    std::vector<std::size_t> missing;                                     // their ids
    for (std::size_t id = 0; id < words.size(); ++id) {
        if (const auto r = row(words[id])) {
            std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(*r * d), d, &table(id, 0));
        } else {
            unknown.push_back(words[id]);
            missing.push_back(id);
        }
    }
    if (missing.empty() || !random) return table;
    gen.manual_seed(seed);
    const xt::xtensor<float, 2> drawn = torch_randn<float>(gen, missing.size(), d);
    for (std::size_t k = 0; k < missing.size(); ++k)
        for (std::size_t j = 0; j < d; ++j) table(missing[k], j) = drawn(k, j);
    return table;
}

EmbeddingError::EmbeddingError(Fault f, const std::string& what)
    : std::invalid_argument(what), fault(f) {}

Sequence embed_sentence(const std::string& text, const TokenizeOptions& options,
                        const Embeddings& embeddings, UnknownWord unknown, TorchGenerator& gen,
                        std::uint64_t seed, const std::string& where) {
    using Fault = EmbeddingError::Fault;
    Sequence s;
    try {
        s = token_sequence(tokenize(text, options));
    } catch (const std::invalid_argument&) {
        throw EmbeddingError(Fault::empty,
                             where + ": empty sentence: no token remains" +
                                 (options.strip_punctuation ? " after removing punctuation" : ""));
    }
    if (!embeddings.by_word) {
        const std::size_t rows = embeddings.table.shape(0), distinct = s.vocab.size();
        if (distinct > rows)
            throw EmbeddingError(
                Fault::too_few_rows,
                fmt::format("{}: {} distinct tokens have ids 0..{}, but the embedding table has "
                            "{} rows",
                            where, distinct, distinct - 1, rows));
        s.x.push_back(embed_rows(embeddings.table, s.ids));  // (n, D)
        return s;
    }
    std::vector<std::string> missing;  // in vocabulary order
    const runtime::WordVectors& v = embeddings.vectors;
    const xt::xtensor<double, 2> table = word_table(
        s.vocab, [&v](const std::string& w) { return v.find(w); }, v.values, v.dim,
        unknown == UnknownWord::random, gen, seed, missing);  // (|vocab|, D)
    if (!missing.empty() && unknown == UnknownWord::error) {
        EmbeddingError e(Fault::unknown_words,
                         fmt::format("{}: no vector for '{}'", where, fmt::join(missing, "', '")));
        e.unknown = std::move(missing);
        throw e;
    }
    s.x.push_back(embed_rows(table, s.ids));  // (n, D)
    return s;
}

DrawnWeights draw_attention_weights(TorchGenerator& gen, std::uint64_t seed,
                                    const WeightDraws& draws, ProjectionInit init) {
    gen.manual_seed(seed);
    using Bias = std::optional<xt::xtensor<float, 1>>;
    // W (rows, cols), then its bias (cols,) with draws.bias
    const auto draw = [&](bool wanted, std::size_t rows, std::size_t cols,
                          Bias& bias) -> std::optional<xt::xtensor<float, 2>> {
        if (!wanted) return std::nullopt;
        if (draws.bias && init == ProjectionInit::linear) {
            TorchLinear<float> layer = torch_linear<float>(gen, rows, cols, true);
            bias = std::move(layer.bias);
            return xt::xtensor<float, 2>(xt::transpose(layer.weight));  // (rows, cols)
        }
        xt::xtensor<float, 2> w = draw_projection(gen, rows, cols, init);
        if (draws.bias)  // torch.rand(cols): the numbers of torch.rand(1, cols)
            bias = xt::xtensor<float, 1>(xt::flatten(torch_rand<float>(gen, 1, cols)));
        return w;
    };
    DrawnWeights w;
    for (std::size_t h = 0; h < draws.heads; ++h) {
        w.query.push_back(draw(draws.query, draws.d_in, draws.d_query, w.b_query.emplace_back()));
        w.key.push_back(draw(draws.key, draws.d_in, draws.d_key, w.b_key.emplace_back()));
        w.value.push_back(draw(draws.value, draws.d_in, draws.d_value, w.b_value.emplace_back()));
    }
    if (draws.d_out) w.out = draw(draws.out, draws.heads * draws.d_value, *draws.d_out, w.b_out);
    return w;
}

}  // namespace attn
