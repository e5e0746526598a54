// attn attend: self-attention of a sentence, step by step as the notebook shows it
// (vocabulary, ids, embeddings, Q, K, V, omega, weights, context), or of given rows.
// The math is attn::multi_head_attention; this file reads inputs, draws parameters and
// describes the arrays for the writers.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "attn/attention.hpp"
#include "attn/projections.hpp"
#include "attn/tokenizer.hpp"
#include "attn/torch_random.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_code.hpp"
#include "io/embeddings_text.hpp"
#include "io/matrix_stream.hpp"
#include "io/npy.hpp"

namespace attn::cli {

namespace {

struct AttendOptions {
    std::string sentence;
    bool lowercase = false;
    bool strip_punctuation = false;
    std::int64_t vocab_size = 50000;
    std::int64_t embed_dim = 3;
    std::string embeddings;
    std::string vocab;
    std::string unknown = "error";
    std::string rng = "torch";
    std::uint64_t seed = 123;
    std::string rng_kernel = "avx2";
    std::int64_t dq = 2;
    std::int64_t dk = 2;
    std::int64_t dv = 4;
    std::string init = "rand";
    std::string wq, wk, wv, wo;
    std::int64_t heads = 1;
    bool out_proj = false;
    bool causal = false;
    std::string valid_len;
    double mask_value = -1e6;
    std::string show;
    std::int64_t query = 0;
    std::string input;
    OutputOptions out;
    // Options whose presence matters, not only their value.
    CLI::Option* sentence_opt = nullptr;
    CLI::Option* embed_dim_opt = nullptr;
    CLI::Option* dq_opt = nullptr;
    CLI::Option* dk_opt = nullptr;
    CLI::Option* dv_opt = nullptr;
    CLI::Option* mask_value_opt = nullptr;
    CLI::Option* query_opt = nullptr;
};

// ---------------------------------------------------------------------------------------
// Inputs: sentences -> tokens -> embedded rows, or the rows of an .npy file.

// One sequence of the run: a sentence, or the input matrix (b = 0: 2-d) / batch.
struct Sequence {
    std::vector<std::string> tokens;  // empty for --input: labels are positions
    std::vector<std::size_t> ids;
    std::vector<std::string> vocab;
    std::size_t batch = 0;                  // 0: no batch axis; else b
    std::vector<xt::xtensor<double, 2>> x;  // per batch element (n, d_in), exact input values
    std::size_t n() const { return x.front().shape(0); }
    std::size_t d_in() const { return x.front().shape(1); }
};

// The embedding source of sentence mode.
struct EmbeddingSource {
    enum Kind { torch_table, npy_by_id, words } kind = torch_table;
    std::string description;       // for titles
    xt::xtensor<double, 2> table;  // torch_table, npy_by_id: (V, D)
    io::WordVectors vectors;       // words (an .npy table with --vocab is turned into this)
    std::size_t dim() const { return kind == words ? vectors.dim : table.shape(1); }
};

bool is_npy_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[6] = {};
    in.read(magic, 6);
    return in.gcount() == 6 && std::string(magic, 6) == "\x93NUMPY";
}

// read_npy with the option named in every message: malformed -> UsageError (exit 2),
// unreadable -> std::system_error (exit 1).
io::NpyArray read_npy_option(const std::string& option, const std::string& path) {
    try {
        return io::read_npy(path);
    } catch (const std::system_error& e) {
        throw std::system_error(e.code(), option + ": " + path);
    } catch (const std::invalid_argument& e) {
        throw UsageError(option + ": " + e.what());
    }
}

template <class F>
auto with_option(const std::string& option, F read) {
    try {
        return read();
    } catch (const std::system_error& e) {
        throw std::system_error(e.code(), option + ": " + e.what());
    } catch (const std::invalid_argument& e) {
        throw UsageError(option + ": " + e.what());
    }
}

std::string shape_string(const std::vector<std::size_t>& shape) {
    std::string s = "(";
    for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

EmbeddingSource load_embeddings(const AttendOptions& opt, TorchGenerator& gen) {
    EmbeddingSource src;
    if (opt.embeddings.empty()) {
        const auto v = static_cast<std::uint64_t>(opt.vocab_size);
        const auto d = static_cast<std::uint64_t>(opt.embed_dim);
        // float32 table, the double copy, and the generator's temporaries.
        check_memory(opt.out, checked_product({v, d, 4 + 8 + 8}, "--vocab-size"),
                     fmt::format("--vocab-size {} --embed-dim {}: the embedding table", v, d));
        gen.manual_seed(opt.seed);
        const xt::xtensor<float, 2> t = torch_embedding<float>(gen, v, d);  // (V, D)
        src.table = xt::cast<double>(t);
        src.description = fmt::format("nn.Embedding({}, {}), seed {}", v, d, opt.seed);
        return src;
    }
    if (is_npy_file(opt.embeddings)) {
        io::NpyArray a = read_npy_option("--embeddings", opt.embeddings);
        if (a.shape.size() != 2 || a.shape[0] == 0 || a.shape[1] == 0)
            throw UsageError(
                fmt::format("--embeddings: {}: shape {}; an embedding table is (vocabulary, dim)",
                            opt.embeddings, shape_string(a.shape)));
        if (!opt.vocab.empty()) {
            src.kind = EmbeddingSource::words;
            src.vectors.words =
                with_option("--vocab", [&] { return io::read_word_list(opt.vocab); });
            if (src.vectors.words.size() != a.shape[0])
                throw UsageError(fmt::format("--vocab: {} lists {} words, but {} has {} rows",
                                             opt.vocab, src.vectors.words.size(), opt.embeddings,
                                             a.shape[0]));
            src.vectors.dim = a.shape[1];
            src.vectors.values = std::move(a.values);
            src.vectors.index();
        } else {
            src.kind = EmbeddingSource::npy_by_id;
            src.table = xt::xtensor<double, 2>::from_shape({a.shape[0], a.shape[1]});
            std::copy(a.values.begin(), a.values.end(), src.table.begin());
        }
        src.description = opt.embeddings;
        return src;
    }
    if (!opt.vocab.empty())
        throw UsageError("--vocab: names the rows of an .npy table; " + opt.embeddings +
                         " is a text file that names its own words");
    src.kind = EmbeddingSource::words;
    src.vectors =
        with_option("--embeddings", [&] { return io::read_word_vectors(opt.embeddings); });
    src.description = opt.embeddings;
    return src;
}

Sequence embed_sentence(const std::string& text, const std::string& where, const AttendOptions& opt,
                        const EmbeddingSource& src, TorchGenerator& gen) {
    TokenizeOptions t;
    t.lowercase = opt.lowercase;
    t.strip_punctuation = opt.strip_punctuation;
    Sequence s;
    try {
        s.tokens = tokenize(text, t);
    } catch (const std::invalid_argument&) {
        throw UsageError(where + ": empty sentence: no token remains" +
                         (opt.strip_punctuation ? " after removing punctuation" : ""));
    }
    const Vocabulary vocab(s.tokens);
    s.vocab = vocab.tokens();
    s.ids = vocab.ids(s.tokens);
    const std::size_t n = s.tokens.size(), d = src.dim();
    xt::xtensor<double, 2> x = xt::zeros<double>({n, d});  // (n, d)
    if (src.kind != EmbeddingSource::words) {
        const std::size_t rows = src.table.shape(0);
        if (vocab.size() > rows)
            throw UsageError(fmt::format(
                "{}: {} distinct tokens have ids 0..{}, but the embedding table has {} rows ({})",
                where, vocab.size(), vocab.size() - 1, rows,
                src.kind == EmbeddingSource::torch_table ? "--vocab-size" : "--embeddings"));
        for (std::size_t i = 0; i < n; ++i) xt::row(x, i) = xt::row(src.table, s.ids[i]);
    } else {
        std::vector<std::string> unknown;  // in vocabulary order
        std::vector<std::size_t> row_of(vocab.size());
        for (std::size_t id = 0; id < vocab.size(); ++id) {
            const auto r = src.vectors.find(vocab.token(id));
            if (!r) unknown.push_back(vocab.token(id));
            row_of[id] = r.value_or(std::numeric_limits<std::size_t>::max());
        }
        if (!unknown.empty() && opt.unknown == "error") {
            std::string list;
            for (const auto& u : unknown) list += (list.empty() ? "'" : ", '") + u + "'";
            throw UsageError(
                fmt::format("--embeddings: {}: no vector for {} (see --unknown)", where, list));
        }
        // --unknown random: torch.manual_seed(seed); torch.randn(len(unknown), dim).
        xt::xtensor<float, 2> random;
        if (!unknown.empty() && opt.unknown == "random") {
            gen.manual_seed(opt.seed);
            random = torch_randn<float>(gen, unknown.size(), d);
        }
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t r = row_of[s.ids[i]];
            if (r != std::numeric_limits<std::size_t>::max()) {
                for (std::size_t j = 0; j < d; ++j) x(i, j) = src.vectors.values[r * d + j];
            } else if (opt.unknown == "random") {
                const auto k = static_cast<std::size_t>(
                    std::find(unknown.begin(), unknown.end(), s.tokens[i]) - unknown.begin());
                for (std::size_t j = 0; j < d; ++j) x(i, j) = random(k, j);
            }
        }
    }
    s.x.push_back(std::move(x));
    return s;
}

Sequence read_input(const AttendOptions& opt) {
    io::NpyArray a = read_npy_option("--input", opt.input);
    const auto& sh = a.shape;
    if ((sh.size() != 2 && sh.size() != 3) || std::find(sh.begin(), sh.end(), 0) != sh.end())
        throw UsageError(
            fmt::format("--input: {}: shape {}; expected rows (n, d) or a batch (b, n, d), "
                        "none of them 0",
                        opt.input == "-" ? "<stdin>" : opt.input, shape_string(sh)));
    Sequence s;
    s.batch = sh.size() == 3 ? sh[0] : 0;
    const std::size_t b = std::max<std::size_t>(s.batch, 1), n = sh[sh.size() - 2], d = sh.back();
    for (std::size_t k = 0; k < b; ++k) {
        xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({n, d});
        std::copy_n(a.values.begin() + static_cast<std::ptrdiff_t>(k * n * d), n * d, x.begin());
        s.x.push_back(std::move(x));
    }
    return s;
}

std::vector<std::string> read_sentence_lines() {
    if (io::is_terminal(STDIN_FILENO))
        throw UsageError(
            "no sentence: give one as an argument, or pipe sentences one per line "
            "(see attn attend --help)");
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    if (std::cin.bad()) throw std::system_error(errno, std::generic_category(), "standard input");
    if (lines.empty()) throw UsageError("no sentence on standard input");
    return lines;
}

// ---------------------------------------------------------------------------------------
// Parameters: W_query, W_key, W_value per head (drawn or read), W_o.

struct Dims {
    std::size_t heads, d_in, dq, dv, d_out;
    bool out_proj;
};

// A projection file for H heads of width d: (d_in, d) for one head, (d_in, H d) column
// blocks (head h = columns [h d, (h+1) d), the layout of the book's W^T) or (H, d_in, d).
struct ProjectionFile {
    io::NpyArray a;
    std::size_t width(std::size_t heads) const {  // d as the file implies it, 0 if it cannot
        if (a.shape.size() == 3) return a.shape[0] == heads ? a.shape[2] : 0;
        if (a.shape.size() == 2) return a.shape[1] % heads == 0 ? a.shape[1] / heads : 0;
        return 0;
    }
};

std::optional<ProjectionFile> read_projection(const std::string& option, const std::string& path) {
    if (path.empty()) return std::nullopt;
    return ProjectionFile{read_npy_option(option, path)};
}

void check_projection(const std::string& option, const std::string& path, const ProjectionFile& f,
                      std::size_t heads, std::size_t d_in, std::size_t d, const char* dname) {
    const auto& sh = f.a.shape;
    const bool ok = (sh.size() == 2 && sh[0] == d_in && sh[1] == heads * d) ||
                    (sh.size() == 3 && sh[0] == heads && sh[1] == d_in && sh[2] == d);
    if (!ok)
        throw UsageError(fmt::format(
            "{}: {} has shape {}; {} head{} with d_in = {} and {} = {} need ({}, {}){}", option,
            path, shape_string(sh), heads, heads > 1 ? "s" : "", d_in, dname, d, d_in, heads * d,
            heads > 1 ? fmt::format(" or ({}, {}, {})", heads, d_in, d) : std::string()));
}

template <class T>
xt::xtensor<T, 2> head_block(const ProjectionFile& f, std::size_t h, std::size_t heads) {
    const auto& sh = f.a.shape;
    const std::size_t d_in = sh.size() == 3 ? sh[1] : sh[0];
    const std::size_t d = f.width(heads);
    xt::xtensor<T, 2> w = xt::xtensor<T, 2>::from_shape({d_in, d});
    for (std::size_t i = 0; i < d_in; ++i)
        for (std::size_t j = 0; j < d; ++j)
            w(i, j) = static_cast<T>(sh.size() == 3 ? f.a.values[(h * d_in + i) * d + j]
                                                    : f.a.values[i * sh[1] + h * d + j]);
    return w;
}

template <class T>
struct Parameters {
    std::vector<HeadWeights<T>> heads;
    std::optional<xt::xtensor<T, 2>> w_out;
};

// ---------------------------------------------------------------------------------------
// Output: every array described once, then streamed row by row.

struct RowLabel {
    std::string name;
    std::function<std::string(std::size_t i)> value;  // i: row index within one matrix
};

using Emit = io::MatrixStream;

// A stack of (batch, head) matrices, rows `rows` of each: shape [b] [H] len(rows) cols.
template <class T>
Emit matrix_emit(std::string name, std::string title, std::size_t batch, std::size_t heads,
                 std::vector<std::size_t> rows, std::vector<std::string> column_labels,
                 std::vector<RowLabel> row_labels,
                 std::function<const xt::xtensor<T, 2>&(std::size_t b, std::size_t h)> mat) {
    Emit e;
    e.info.name = std::move(name);
    e.info.title = std::move(title);
    const std::size_t nr = rows.size(), H = std::max<std::size_t>(heads, 1);
    auto idx = std::make_shared<std::vector<std::size_t>>(std::move(rows));
    if (batch) {
        e.info.shape.push_back(batch);
        e.info.labels.push_back(
            {"batch", [nr, H](std::size_t r) { return std::to_string(r / nr / H); }});
    }
    if (heads) {
        e.info.shape.push_back(heads);
        e.info.labels.push_back(
            {"head", [nr, H](std::size_t r) { return std::to_string(r / nr % H); }});
    }
    for (auto& l : row_labels)
        e.info.labels.push_back(
            {l.name, [idx, nr, f = l.value](std::size_t r) { return f((*idx)[r % nr]); }});
    e.info.shape.push_back(nr);
    e.info.shape.push_back(column_labels.size());
    e.info.column_labels = std::move(column_labels);
    auto fill = [idx, nr, H, mat](std::size_t r, double* out) {
        const auto& m = mat(r / nr / H, r / nr % H);
        const std::size_t i = (*idx)[r % nr];
        for (std::size_t j = 0; j < m.shape(1); ++j) out[j] = static_cast<double>(m(i, j));
    };
    e.produce = io::row_by_row(fill, e.info.columns());
    return e;
}

// Where a sentence's row is shorter than the widest (keys it lacks): weights 0, else NaN.
double pad_for(const std::string& item) {
    return item == "weights" ? 0.0 : std::numeric_limits<double>::quiet_NaN();
}

std::vector<std::string> indices(std::size_t n) {
    std::vector<std::string> v;
    for (std::size_t j = 0; j < n; ++j) v.push_back(std::to_string(j));
    return v;
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        out.push_back(
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

const std::vector<std::string> kShowNames = {
    "vocabulary", "tokens", "embeddings", "w_query", "w_key",   "w_value", "w_out",
    "queries",    "keys",   "values",     "scores",  "weights", "context"};

// ---------------------------------------------------------------------------------------

template <class T>
int run_typed(const AttendOptions& opt, std::vector<Sequence>& seqs, const std::string& embed_title,
              bool indexed, TorchGenerator& gen, const std::vector<std::string>& show) {
    const bool from_input = !opt.input.empty();
    const std::size_t d_in = seqs.front().d_in();
    const auto H = static_cast<std::size_t>(opt.heads);

    // Projection sizes: from the options, or from the files when the option is absent.
    auto fq = read_projection("--wq", opt.wq), fk = read_projection("--wk", opt.wk),
         fv = read_projection("--wv", opt.wv), fo = read_projection("--wo", opt.wo);
    std::size_t dq = static_cast<std::size_t>(opt.dq), dv = static_cast<std::size_t>(opt.dv);
    if (!opt.dq_opt->count() && (fq || fk) && (fq ? fq : fk)->width(H))
        dq = (fq ? fq : fk)->width(H);
    if (!opt.dv_opt->count() && fv && fv->width(H)) dv = fv->width(H);
    const std::size_t dk = opt.dk_opt->count() ? static_cast<std::size_t>(opt.dk) : dq;
    if (dk != dq)
        throw UsageError(
            fmt::format("--dk: {} differs from d_q = {}; the scores Q K^T need d_k = d_q", dk, dq));
    if (fq) check_projection("--wq", opt.wq, *fq, H, d_in, dq, "d_q");
    if (fk) check_projection("--wk", opt.wk, *fk, H, d_in, dk, "d_k");
    if (fv) check_projection("--wv", opt.wv, *fv, H, d_in, dv, "d_v");
    const bool out_proj = opt.out_proj || fo.has_value();
    std::size_t d_out = H * dv;
    if (fo) {
        const auto& sh = fo->a.shape;
        if (sh.size() != 2 || sh[0] != H * dv || sh[1] == 0)
            throw UsageError(
                fmt::format("--wo: {} has shape {}; W_o needs {} rows (heads x d_v) and "
                            "any number of columns",
                            opt.wo, shape_string(sh), H * dv));
        d_out = sh[1];
    }

    // Sizes before allocation: per sequence and head, scores, scaled scores, weights (T) and
    // the mask (1 byte), n x n each; plus the projections.
    std::uint64_t bytes = 0;
    for (const auto& s : seqs) {
        const std::uint64_t b = std::max<std::size_t>(s.batch, 1), n = s.n();
        bytes +=
            checked_product({b, H, n, n, 3 * sizeof(T) + 1}, "attention scores") +
            checked_product({b, n, d_in + H * (2 * dq + dv) + d_out, sizeof(T) * 2}, "projections");
    }
    const Sequence& first = seqs.front();
    check_memory(opt.out, bytes,
                 from_input ? fmt::format("--input: {}{} x {} x {} attention scores",
                                          first.batch ? fmt::format("{} x ", first.batch) : "", H,
                                          first.n(), first.n())
                            : "the attention scores");

    // After the embedding the generator is seeded again, as the notebook does; head 0 first.
    const ProjectionInit init =
        opt.init == "linear" ? ProjectionInit::linear : ProjectionInit::rand;
    gen.manual_seed(opt.seed);
    Parameters<T> par;
    const auto draw = [&](std::size_t rows, std::size_t cols) {
        const xt::xtensor<float, 2> w = draw_projection(gen, rows, cols, init);
        xt::xtensor<T, 2> out = xt::cast<T>(w);
        return out;
    };
    for (std::size_t h = 0; h < H; ++h) {
        HeadWeights<T> w;
        w.w_query = fq ? head_block<T>(*fq, h, H) : draw(d_in, dq);
        w.w_key = fk ? head_block<T>(*fk, h, H) : draw(d_in, dk);
        w.w_value = fv ? head_block<T>(*fv, h, H) : draw(d_in, dv);
        par.heads.push_back(std::move(w));
    }
    if (fo)
        par.w_out = head_block<T>(*fo, 0, 1);
    else if (out_proj)
        par.w_out = draw(H * dv, d_out);

    // Masks: --valid-len holds one length for all sequences or one per sequence.
    std::vector<std::size_t> valid;
    if (!opt.valid_len.empty()) {
        for (const auto& f : split_list(opt.valid_len)) {
            std::size_t v = 0;
            const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
            if (f.empty() || ec != std::errc() || end != f.data() + f.size())
                throw UsageError("--valid-len: '" + f +
                                 "' is not a length (a non-negative integer)");
            valid.push_back(v);
        }
    }
    std::size_t sequences = 0;
    for (const auto& s : seqs) sequences += std::max<std::size_t>(s.batch, 1);
    if (valid.size() > 1 && valid.size() != sequences)
        throw UsageError(
            fmt::format("--valid-len: {} lengths for {} sequences; give one for all or "
                        "one per sequence",
                        valid.size(), sequences));
    if (opt.mask_value_opt->count() &&
        (std::isnan(opt.mask_value) || (opt.mask_value > 0 && std::isinf(opt.mask_value))))
        throw UsageError(fmt::format("--mask-value: {} is not a number or -inf", opt.mask_value));

    if (opt.query_opt->count())
        for (std::size_t k = 0; k < seqs.size(); ++k)
            if (static_cast<std::size_t>(opt.query) >= seqs[k].n())
                throw UsageError(fmt::format(
                    "--query: {} is not a query position of {} ({} rows: 0..{})", opt.query,
                    indexed      ? fmt::format("sentence {}", k)
                    : from_input ? "the input"
                                 : "the sentence",
                    seqs[k].n(), seqs[k].n() - 1));

    // The attention itself: one call per sequence (batch element).
    std::vector<std::vector<MultiHeadResult<T>>> results(seqs.size());
    std::vector<std::vector<xt::xtensor<T, 2>>> xs(seqs.size());
    std::size_t seq_index = 0;
    for (std::size_t k = 0; k < seqs.size(); ++k) {
        for (auto& x64 : seqs[k].x) {
            MaskOptions mask;
            mask.causal = opt.causal;
            if (!valid.empty()) mask.valid_len = valid.size() == 1 ? valid[0] : valid[seq_index];
            if (opt.mask_value_opt->count()) mask.fill = opt.mask_value;
            ++seq_index;
            xs[k].push_back(xt::cast<T>(x64));
            results[k].push_back(multi_head_attention<T>(xs[k].back(), xs[k].back(), xs[k].back(),
                                                         par.heads, par.w_out, mask));
        }
    }

    // Describe the arrays.
    std::string mask_text;
    if (opt.causal) mask_text += ", causal";
    if (!valid.empty()) mask_text += ", valid length " + opt.valid_len;
    if (opt.mask_value_opt->count())
        mask_text += fmt::format(", masked scores = {}", opt.mask_value);
    const std::string heads_text = H > 1 ? fmt::format(", {} heads", H) : "";
    const std::size_t head_axis = H > 1 ? H : 0;

    auto emits_for = [&](std::size_t k, const std::string& item) -> Emit {
        const Sequence& s = seqs[k];
        const std::size_t n = s.n();
        std::vector<RowLabel> labels{{"position", [](std::size_t i) { return std::to_string(i); }}};
        auto tokens = std::make_shared<std::vector<std::string>>(s.tokens);
        if (!tokens->empty())
            labels.push_back({"token", [tokens](std::size_t i) { return (*tokens)[i]; }});
        std::vector<std::size_t> all(n), queries{static_cast<std::size_t>(opt.query)};
        for (std::size_t i = 0; i < n; ++i) all[i] = i;
        if (!opt.query_opt->count()) queries = all;
        const std::vector<std::string> key_labels = tokens->empty() ? indices(n) : *tokens;
        const auto& res = results[k];
        const auto& xk = xs[k];
        const std::size_t batch = s.batch;
        std::vector<RowLabel> in_labels{{"in", [](std::size_t i) { return std::to_string(i); }}};
        using M = const xt::xtensor<T, 2>&;

        if (item == "vocabulary" || item == "tokens") {
            Emit e;
            const bool vocab = item == "vocabulary";
            auto v = std::make_shared<std::vector<std::string>>(vocab ? s.vocab : s.tokens);
            auto ids = std::make_shared<std::vector<std::size_t>>(s.ids);
            e.info.name = item;
            e.info.title = vocab ? "vocabulary: sorted unique tokens and their ids"
                                 : "tokens and their ids (sentence_int)";
            if (!vocab)
                e.info.labels.push_back(
                    {"position", [](std::size_t i) { return std::to_string(i); }});
            e.info.labels.push_back({"token", [v](std::size_t i) { return (*v)[i]; }});
            e.info.column_labels = {"id"};
            e.info.shape = {v->size(), 1};
            e.produce = io::row_by_row(
                [vocab, ids](std::size_t i, double* out) {
                    *out = static_cast<double>(vocab ? i : (*ids)[i]);
                },
                1);
            return e;
        }
        if (item == "embeddings")
            return matrix_emit<T>("embeddings", embed_title, batch, 0, all, indices(d_in), labels,
                                  [&xk](std::size_t b, std::size_t) -> M { return xk[b]; });
        if (item == "w_query" || item == "w_key" || item == "w_value") {
            const int which = item == "w_query" ? 0 : item == "w_key" ? 1 : 2;
            const auto& p = par.heads;
            auto pick = [&p, which](std::size_t, std::size_t h) -> M {
                return which == 0 ? p[h].w_query : which == 1 ? p[h].w_key : p[h].w_value;
            };
            const std::size_t w = which == 2 ? dv : dq;
            std::vector<std::size_t> rows(d_in);
            for (std::size_t i = 0; i < d_in; ++i) rows[i] = i;
            const char* names[] = {"W_query (d_in x d_q)", "W_key (d_in x d_k)",
                                   "W_value (d_in x d_v)"};
            return matrix_emit<T>(item, std::string("projection ") + names[which] + heads_text, 0,
                                  head_axis, rows, indices(w), in_labels, pick);
        }
        if (item == "w_out") {
            std::vector<std::size_t> rows(H * dv);
            for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
            return matrix_emit<T>("w_out", "output projection W_o (heads x d_v, d_out)", 0, 0, rows,
                                  indices(d_out), in_labels,
                                  [&par](std::size_t, std::size_t) -> M { return *par.w_out; });
        }
        if (item == "queries")
            return matrix_emit<T>(
                "queries", "queries Q = X W_query" + heads_text, batch, head_axis, queries,
                indices(dq), labels,
                [&res](std::size_t b, std::size_t h) -> M { return res[b].heads[h].queries; });
        if (item == "keys")
            return matrix_emit<T>(
                "keys", "keys K = X W_key" + heads_text, batch, head_axis, all, indices(dk), labels,
                [&res](std::size_t b, std::size_t h) -> M { return res[b].heads[h].keys; });
        if (item == "values")
            return matrix_emit<T>(
                "values", "values V = X W_value" + heads_text, batch, head_axis, all, indices(dv),
                labels,
                [&res](std::size_t b, std::size_t h) -> M { return res[b].heads[h].values; });
        if (item == "scores") {
            Emit e = matrix_emit<T>(
                "scores", "unnormalized attention scores omega = Q K^T" + heads_text, batch,
                head_axis, queries, key_labels, labels, [&res](std::size_t b, std::size_t h) -> M {
                    return res[b].heads[h].attention.scores;
                });
            e.info.column_axis = "Key";
            return e;
        }
        if (item == "weights") {
            Emit e = matrix_emit<T>(
                "weights", "attention weights softmax(omega / sqrt(d_k))" + mask_text + heads_text,
                batch, head_axis, queries, key_labels, labels,
                [&res](std::size_t b, std::size_t h) -> M {
                    return res[b].heads[h].attention.weights;
                });
            e.info.column_axis = "Key";
            return e;
        }
        // context
        const std::string title =
            out_proj ? fmt::format("output [z_0 | ... | z_{}] W_o", H - 1)
            : H > 1  ? fmt::format("context vectors [z_0 | ... | z_{}] (heads concatenated)", H - 1)
                     : std::string("context vectors z = weights V");
        return matrix_emit<T>("context", title + mask_text, batch, 0, queries,
                              indices(res.front().output.shape(1)), labels,
                              [&res](std::size_t b, std::size_t) -> M { return res[b].output; });
    };

    const bool several = holds_several_arrays(opt.out);
    Output output(opt.out, several && indexed ? show.size() * seqs.size() : show.size());
    std::vector<io::MatrixStream> streams;
    if (!indexed) {
        for (const auto& item : show) streams.push_back(emits_for(0, item));
    } else if (several) {  // one entry per sentence: <array>_<sentence>
        for (std::size_t k = 0; k < seqs.size(); ++k)
            for (const auto& item : show) {
                Emit e = emits_for(k, item);
                e.info.name += fmt::format("_{}", k);
                e.info.title = fmt::format("sentence {}: {}", k, e.info.title);
                streams.push_back(std::move(e));
            }
    } else {  // one array, the sentence index as the first field
        for (const auto& item : show) {
            std::vector<Emit> parts;
            for (std::size_t k = 0; k < seqs.size(); ++k) parts.push_back(emits_for(k, item));
            Emit e = io::concatenate(std::move(parts), "sentence", pad_for(item));
            e.info.title += ", every sentence";
            streams.push_back(std::move(e));
        }
    }
    for (auto& s : streams) s.info.dtype = output.dtype();
    io::drive(output.sink(), streams);
    output.commit();
    return kOk;
}

int run_attend(const AttendOptions& opt) {
    const bool from_input = !opt.input.empty();
    const bool indexed = !from_input && !opt.sentence_opt->count();
    if (opt.embed_dim_opt->count() && !opt.embeddings.empty())
        throw UsageError("--embed-dim: the dimension comes from --embeddings " + opt.embeddings);

    // What to show.
    const io::Format format = resolve_format(opt.out);
    std::string show_text = opt.show;
    if (show_text.empty())
        show_text =
            (opt.out.output == "-" || opt.out.output.empty()) && io::is_terminal(STDOUT_FILENO)
                ? "all"
                : "context";
    std::vector<std::string> show;
    for (const auto& item : split_list(show_text)) {
        std::vector<std::string> expanded{item};
        if (item == "all") {
            expanded = {"embeddings", "queries", "keys", "values", "scores", "weights", "context"};
            if (!from_input) expanded.insert(expanded.begin(), {"vocabulary", "tokens"});
        } else if (std::find(kShowNames.begin(), kShowNames.end(), item) == kShowNames.end()) {
            throw UsageError("--show: '" + item +
                             "' is not one of all, vocabulary, tokens, embeddings, queries, keys, "
                             "values, scores, weights, context, w_query, w_key, w_value, w_out");
        } else if (from_input && (item == "tokens" || item == "vocabulary")) {
            throw UsageError("--show " + item + ": --input rows have positions, not tokens");
        } else if (item == "w_out" && !opt.out_proj && opt.wo.empty()) {
            throw UsageError(
                "--show w_out: there is no output projection without --out-proj or --wo");
        }
        for (auto& e : expanded)
            if (std::find(show.begin(), show.end(), e) == show.end()) show.push_back(e);
    }
    if (indexed && format == io::Format::npy && !writes_directory(opt.out))
        throw UsageError(
            "--format npy: one array cannot carry the sentence index of sentences read "
            "from standard input; use csv, tsv, npz, json or -o DIR/");

    TorchGenerator gen(opt.seed,
                       opt.rng_kernel == "scalar" ? TorchKernel::scalar : TorchKernel::avx2);
    std::vector<Sequence> seqs;
    std::string embed_title;
    if (from_input) {
        seqs.push_back(read_input(opt));
        embed_title = "input X";
    } else {
        if (indexed && (opt.embeddings == "-" || opt.vocab == "-"))
            throw UsageError("--embeddings: standard input holds the sentences; give a file");
        const EmbeddingSource src = load_embeddings(opt, gen);
        embed_title = "embedded sentence (" + src.description + ")";
        if (!indexed) {
            seqs.push_back(embed_sentence(opt.sentence, "the sentence", opt, src, gen));
        } else {
            const auto lines = read_sentence_lines();
            for (std::size_t k = 0; k < lines.size(); ++k)
                seqs.push_back(embed_sentence(
                    lines[k], fmt::format("standard input line {}", k + 1), opt, src, gen));
        }
    }
    if (opt.out.dtype == "float64")
        return run_typed<double>(opt, seqs, embed_title, indexed, gen, show);
    return run_typed<float>(opt, seqs, embed_title, indexed, gen, show);
}

}  // namespace

Command add_attend(CLI::App& root) {
    auto opt = std::make_shared<AttendOptions>();  // bound addresses must outlive parse()
    CLI::App* sub = root.add_subcommand(
        "attend", "Self-attention of a sentence, step by step as the notebook, or of given rows");
    opt->sentence_opt =
        sub->add_option("sentence", opt->sentence,
                        "The sentence; absent: one sentence per line on standard input")
            ->type_name("SENTENCE");
    auto* g_tok = sub->add_option_group("Tokens and embeddings");
    g_tok->add_flag("--lowercase", opt->lowercase, "Lower-case ASCII letters before splitting");
    g_tok->add_flag("--strip-punctuation", opt->strip_punctuation, "Remove all ASCII punctuation");
    g_tok
        ->add_option("--vocab-size", opt->vocab_size,
                     "Rows of the nn.Embedding table drawn from the seed")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
        ->capture_default_str();
    opt->embed_dim_opt =
        g_tok->add_option("--embed-dim", opt->embed_dim, "Columns of the nn.Embedding table (d_in)")
            ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24))
            ->capture_default_str();
    g_tok
        ->add_option(
            "--embeddings", opt->embeddings,
            "Word vectors: word2vec/GloVe text (word, then its values, per line) or an .npy "
            "table (rows by id, or by --vocab)")
        ->type_name("FILE");
    g_tok
        ->add_option("--vocab", opt->vocab,
                     "Words naming the rows of an --embeddings .npy, one per line")
        ->type_name("FILE");
    g_tok
        ->add_option("--unknown", opt->unknown,
                     "A word without a vector: error, zero or random (randn)")
        ->check(CLI::IsMember({"error", "zero", "random"}))
        ->capture_default_str();
    g_tok
        ->add_option("--input", opt->input,
                     "Attend over the rows of an .npy (n x d) or batch (b x n x d); - = stdin")
        ->type_name("FILE");

    auto* g_par = sub->add_option_group("Parameters");
    g_par->add_option("--rng", opt->rng, "Random generator")
        ->check(CLI::IsMember({"torch"}))
        ->capture_default_str();
    g_par
        ->add_option("--seed", opt->seed,
                     "torch.manual_seed before the embedding and again before W")
        ->capture_default_str();
    g_par
        ->add_option("--rng-kernel", opt->rng_kernel,
                     "libtorch's kernels to imitate: avx2 (x86-64 with AVX2) or scalar (without)")
        ->check(CLI::IsMember({"avx2", "scalar"}))
        ->capture_default_str();
    opt->dq_opt = g_par->add_option("--dq", opt->dq, "Query width d_q per head")
                      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24))
                      ->capture_default_str();
    opt->dk_opt = g_par->add_option("--dk", opt->dk, "Key width d_k (default and only value: d_q)")
                      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24));
    opt->dv_opt = g_par->add_option("--dv", opt->dv, "Value width d_v per head")
                      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24))
                      ->capture_default_str();
    g_par
        ->add_option(
            "--init", opt->init,
            "rand: torch.rand(d_in, d_out) as the notebook; linear: nn.Linear(d_in, d_out, "
            "bias=False) weight, transposed")
        ->check(CLI::IsMember({"rand", "linear"}))
        ->capture_default_str();
    g_par
        ->add_option("--wq", opt->wq,
                     "W_query from an .npy: (d_in, d_q), (d_in, H d_q) or (H, d_in, d_q)")
        ->type_name("FILE");
    g_par->add_option("--wk", opt->wk, "W_key from an .npy, shaped as --wq")->type_name("FILE");
    g_par
        ->add_option("--wv", opt->wv,
                     "W_value from an .npy: (d_in, d_v), (d_in, H d_v) or (H, d_in, d_v)")
        ->type_name("FILE");
    g_par->add_option("--wo", opt->wo, "W_o from an .npy: (H d_v, d_out); implies --out-proj")
        ->type_name("FILE");
    g_par->add_option("--heads", opt->heads, "Independent heads, contexts concatenated")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{4096}))
        ->capture_default_str();
    g_par->add_flag("--out-proj", opt->out_proj,
                    "Project the concatenated contexts by W_o (H d_v x H d_v)");

    auto* g_mask = sub->add_option_group("Masks");
    g_mask->add_flag("--causal", opt->causal, "Query i sees keys j <= i only");
    g_mask
        ->add_option("--valid-len", opt->valid_len,
                     "Keys at positions >= L are masked; L1,L2,... one per sequence")
        ->type_name("L[,L...]");
    opt->mask_value_opt =
        g_mask
            ->add_option("--mask-value", opt->mask_value,
                         "Fill masked scaled scores with V before the softmax (the book: -1e6) "
                         "instead of exact zeros")
            ->type_name("V");

    auto* g_show = sub->add_option_group("What to print");
    g_show
        ->add_option("--show", opt->show,
                     "Comma list of vocabulary, tokens, embeddings, queries, keys, values, scores, "
                     "weights, context, w_query, w_key, w_value, w_out, or all (default: all on a "
                     "terminal, else context)")
        ->type_name("LIST");
    opt->query_opt = g_show->add_option("--query", opt->query, "Only the rows of query position I")
                         ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
                         ->type_name("I");
    add_output_options(*sub, opt->out);

    // --input replaces the sentence and its embedding: checked after parsing rather than with
    // CLI11's excludes(), which would print "Excludes: --input" beside every such option.
    CLI::Option* input = g_tok->get_option("--input");
    std::vector<CLI::Option*> sentence_only{opt->sentence_opt};
    for (const char* name : {"--embeddings", "--vocab", "--lowercase", "--strip-punctuation",
                             "--unknown", "--vocab-size", "--embed-dim"})
        sentence_only.push_back(g_tok->get_option(name));
    sub->footer(
        "Examples:\n"
        "  attn attend \"Life is short, eat dessert first\"             the notebook, step by "
        "step\n"
        "  attn attend \"Life is short, eat dessert first\" --show scores --query 1 -f csv   "
        "omega_2\n"
        "  attn attend \"Life is short, eat dessert first\" --heads 4 --dv 1 --causal\n"
        "  attn encode -n 10 -d 8 -f npy | attn attend --input - --dq 8 --dv 8 -o out.npz --show "
        "all\n"
        "  printf 'a b c\\nd e\\n' | attn attend --show weights -f csv    one sentence per line\n");
    return {sub, [opt, input, sentence_only] {
                if (input->count() > 0)
                    for (const CLI::Option* o : sentence_only)
                        if (o->count() > 0)
                            throw UsageError(fmt::format(
                                "--input: gives the rows to attend over; it cannot be combined "
                                "with {}",
                                o == sentence_only.front() ? "a sentence" : o->get_name()));
                return run_attend(*opt);
            }};
}

}  // namespace attn::cli
