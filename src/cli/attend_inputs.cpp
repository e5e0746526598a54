// attn attend's inputs and setup, read with the option named in any error: the embedding
// table or vectors (drawn nn.Embedding, an .npy table, word vectors) and the sentences embedded
// with them (attn::embed_sentence), or the rows of an .npy file; then the projection files and
// the widths they imply (attn::check_given_weights), the path, the memory of the run, the
// weights read or drawn, the masks and the scheme.
#include "cli/attend.hpp"

#include <fmt/format.h>

#include <unistd.h>
#include <algorithm>
#include <array>
#include <cstdint>
#include <iostream>
#include <limits>
#include <span>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "attn/attention/memory_plan.hpp"
#include "attn/embedding.hpp"
#include "cli/arguments.hpp"
#include "cli/errors.hpp"
#include "io/dtype.hpp"
#include "io/embedding_table.hpp"
#include "io/embeddings_text.hpp"
#include "io/output_file.hpp"
#include "io/output_spec.hpp"
#include "io/text_lines.hpp"
#include "runtime/finite.hpp"
#include "runtime/memory_budget.hpp"
#include "runtime/reduced_float.hpp"

namespace attn::cli {

namespace {

// `values` of `name` within the range of the dtype the layer computes in (io::largest_finite):
// a finite double above it would be inf there.
void check_range(const AttendOptions& opt, const std::string& option,
                 std::span<const double> values, std::span<const std::size_t> shape,
                 const std::string& name) {
    if (const auto largest = io::largest_finite(opt.out.dtype))
        naming_option(option, [&] {
            runtime::check_finite(values, shape, name, *largest, io::dtype_name(opt.out.dtype));
        });
}

// io::read_npy with `option` named in every message.
io::NpyArray read_npy_option(const std::string& option, const std::string& path) {
    return naming_option(option, [&] { return io::read_npy(path); });
}

// The table or vectors the sentences are embedded with.
Embeddings load_embeddings(const AttendOptions& opt, TorchGenerator& gen) {
    Embeddings e;
    if (opt.embeddings.empty()) {
        const auto v = static_cast<std::uint64_t>(opt.vocab_size);
        const auto d = static_cast<std::uint64_t>(opt.embed_dim);
        // float32 table, the double copy, and the generator's temporaries.
        runtime::reserve(runtime::checked_product({v, d, 4 + 8 + 8}, "--vocab-size"),
                         fmt::format("--vocab-size {} --embed-dim {}: the embedding table", v, d));
        e.table = xt::cast<double>(draw_embedding_table(gen, opt.seed, v, d));  // (V, D)
        return e;
    }
    if (!io::is_npy_file(opt.embeddings)) {
        if (!opt.vocab.empty())
            throw UsageError("--vocab: names the rows of an .npy table; " + opt.embeddings +
                             " is a text file that names its own words");
        e.by_word = true;
        e.vectors =
            naming_option("--embeddings", [&] { return io::read_word_vectors(opt.embeddings); });
        return e;
    }
    io::NpyArray a =
        naming_option("--embeddings", [&] { return io::read_embedding_table(opt.embeddings); });
    if (opt.vocab.empty()) {
        e.table = xt::xtensor<double, 2>::from_shape({a.shape[0], a.shape[1]});
        std::copy(a.values.begin(), a.values.end(), e.table.begin());
        return e;
    }
    e.by_word = true;
    e.vectors = naming_option(
        "--vocab", [&] { return io::name_table_rows(std::move(a), opt.embeddings, opt.vocab); });
    return e;
}

// attn::embed_sentence, its message given the option it concerns; `where` names the
// sentence ("the sentence", "standard input line 3").
Sequence embed_sentence(const std::string& text, const std::string& where, const AttendOptions& opt,
                        const Embeddings& embeddings, TorchGenerator& gen) {
    try {
        return attn::embed_sentence(text, {opt.lowercase, opt.strip_punctuation}, embeddings,
                                    opt.unknown, gen, opt.seed, where);
    } catch (const EmbeddingError& e) {
        using Fault = EmbeddingError::Fault;
        if (e.fault == Fault::too_few_rows)  // the table's rows: --vocab-size or the file's
            throw UsageError(fmt::format("{} ({})", e.what(),
                                         opt.embeddings.empty() ? "--vocab-size" : "--embeddings"));
        if (e.fault == Fault::unknown_words)
            throw UsageError(fmt::format("--embeddings: {} (see --unknown)", e.what()));
        throw UsageError(e.what());
    }
}

// --input: rows (n, d) or a batch (b, n, d).
Sequence read_input(const AttendOptions& opt) {
    const io::NpyArray a = read_npy_option("--input", opt.input);
    const std::string where = io::is_standard_stream(opt.input) ? "<stdin>" : opt.input;
    return naming_option("--input", [&] {  // the range checked as the rows are copied
        return rows_sequence(
            a.values, a.shape, where,
            io::largest_finite(opt.out.dtype).value_or(std::numeric_limits<double>::max()),
            io::dtype_name(opt.out.dtype));
    });
}

}  // namespace

Sequences read_sequences(const AttendOptions& opt, bool indexed, TorchGenerator& gen) {
    if (!opt.input.empty()) return {{read_input(opt)}, {"the input"}, "input X"};
    const auto is_stdin = [](const std::string& p) {
        return !p.empty() && io::is_standard_stream(p);
    };
    if (indexed && (is_stdin(opt.embeddings) || is_stdin(opt.vocab)))
        throw UsageError("--embeddings: standard input holds the sentences; give a file");
    const Embeddings embeddings = load_embeddings(opt, gen);
    Sequences in;
    in.title = "embedded sentence (" +
               (opt.embeddings.empty() ? fmt::format("nn.Embedding({}, {}), seed {}",
                                                     opt.vocab_size, opt.embed_dim, opt.seed)
                                       : opt.embeddings) +
               ")";
    if (!indexed) {
        in.seqs.push_back(embed_sentence(opt.sentence, "the sentence", opt, embeddings, gen));
        in.names.push_back("the sentence");
        return in;
    }
    if (io::is_terminal(STDIN_FILENO))
        throw UsageError(
            "no sentence: give one as an argument, or pipe sentences one per line "
            "(see attn attend --help)");
    const std::vector<std::string> lines = io::read_lines(std::cin, "standard input");
    if (lines.empty()) throw UsageError("no sentence on standard input");
    for (std::size_t k = 0; k < lines.size(); ++k) {
        in.seqs.push_back(embed_sentence(lines[k], fmt::format("standard input line {}", k + 1),
                                         opt, embeddings, gen));
        in.names.push_back(fmt::format("sentence {}", k));
    }
    return in;
}

// ---- the run's setup: the projections (W_query, W_key, W_value per head and W_o, and their
// biases, read from .npy files or drawn by attn::draw_attention_weights) and the widths they
// imply, the path, the memory plan, the masks and the scheme.

namespace {

// --wq --wk --wv --wo, those given, and the layer they and the options imply.
struct Projections {
    std::optional<io::NpyArray> q, k, v, o;
    LayerShape layer;
};

// The files' tensors, each named by its path in messages.
GivenWeights given_weights(const AttendOptions& opt, const Projections& f) {
    const auto given = [](const std::optional<io::NpyArray>& a, const std::string& path) {
        return a ? std::optional(GivenTensor{a->values, a->shape, path}) : std::nullopt;
    };
    return {given(f.q, opt.wq), given(f.k, opt.wk), given(f.v, opt.wv), given(f.o, opt.wo)};
}

// The layer's shape: Q = K = V = X, or an option given, else the files' widths, else --input
// rows keep theirs (d_q = d_v = d_in); its scheme and --permute. Every file is checked against
// it (attn::check_given_weights).
LayerShape layer_shape(const AttendOptions& opt, const Projections& f, std::size_t d_in) {
    LayerShape w;
    w.d_in = d_in, w.scheme = opt.pos.scheme, w.permuted = opt.permute.has_value();
    if (opt.no_projection) {  // Q = K = V = X: one head as wide as the rows
        w.d_k = w.d_v = w.d_out = d_in;
        return w;
    }
    w.heads = w.kv_heads = static_cast<std::size_t>(opt.heads);
    w.output = opt.out_proj || f.o.has_value();
    w.weights = true, w.biases = opt.bias;
    const GivenWeights given = given_weights(opt, f);
    const GivenWidths files = given_widths(given, w.heads);
    const bool input = !opt.input.empty();
    const auto width = [&](const char* option, std::int64_t value, std::size_t file) {
        return opt.given(option) ? static_cast<std::size_t>(value)
               : file            ? file
               : input           ? d_in
                                 : static_cast<std::size_t>(value);
    };
    w.d_k = width("--dq", opt.dq, files.d_q);
    w.d_v = width("--dv", opt.dv, files.d_v);
    const std::size_t dk = opt.given("--dk") ? static_cast<std::size_t>(opt.dk) : w.d_k;
    if (dk != w.d_k)
        throw UsageError(fmt::format(
            "--dk: {} differs from d_q = {}; the scores Q K^T need d_k = d_q", dk, w.d_k));
    try {
        w.d_out = check_given_weights(given, w.heads, d_in, w.d_k, w.d_k, w.d_v)
                      .value_or(w.heads * w.d_v);
    } catch (const WeightShapeError& e) {
        constexpr const char* kOption[] = {"--wq", "--wk", "--wv", "--wo"};  // by Weight
        throw UsageError(fmt::format("{}: {}", kOption[static_cast<int>(e.weight)], e.what()));
    }
    return w;
}

Projections read_projections(const AttendOptions& opt, std::size_t d_in) {
    const auto read = [](const char* option, const std::string& path) {
        return path.empty() ? std::nullopt : std::optional(read_npy_option(option, path));
    };
    Projections p{
        read("--wq", opt.wq), read("--wk", opt.wk), read("--wv", opt.wv), read("--wo", opt.wo), {}};
    p.layer = layer_shape(opt, p, d_in);
    return p;
}

// The files' blocks, and the others drawn after torch.manual_seed(seed) in
// attn::draw_attention_weights' order (with --bias, each weight followed by its bias).
template <class T>
AttentionWeights<T> make_parameters(const AttendOptions& opt, const Projections& f,
                                    TorchGenerator& gen) {
    const LayerShape& w = f.layer;
    const GivenWeights given = given_weights(opt, f);
    const WeightDraws draws =
        weight_draws(given, w.heads, w.d_in, w.d_k, w.d_k, w.d_v,
                     w.output ? std::optional(w.d_out) : std::nullopt, opt.bias);
    return attention_weights<T>(draw_attention_weights(gen, opt.seed, draws, opt.init), given,
                                w.heads, w.output);
}

// Whether the run takes the tiled path: --attention, or automatic_path of the longest sequence.
bool use_tiled(const AttendOptions& opt, const std::vector<Sequence>& seqs) {
    if (io::reduced_format(opt.out.dtype)) {  // bfloat16, float16: the direct path (reduced.hpp)
        if (opt.attention == AttentionPath::tiled)
            throw UsageError(fmt::format(
                "--attention tiled: --dtype {} is computed on the direct path (every op rounded "
                "to the dtype, as PyTorch); use --attention direct or auto",
                io::dtype_name(opt.out.dtype)));
        if (opt.no_projection)
            throw UsageError(fmt::format(
                "--no-projection: --dtype {} takes the projected layer; use float32 or float64",
                io::dtype_name(opt.out.dtype)));
        return false;
    }
    if (opt.attention != AttentionPath::automatic) return opt.attention == AttentionPath::tiled;
    return std::any_of(seqs.begin(), seqs.end(), [](const Sequence& s) {
        return automatic_path(s.n()) == attn::AttentionPath::tiled;
    });
}

// The memory of the whole run (attn::sequence_run_plan: the weights, every sequence's layer
// with options `o`, its unpermuted twin with --permute, the row blocks streamed: n wide when
// the arrays shown ask for rows or summaries), with X as read, as shown and unpermuted, and the
// summaries when asked, then of making the weights (attn::making_weights_bytes), reserved
// before anything is allocated: UsageError naming --max-memory above the limit. Values are
// value_bytes wide (sizeof(T)). Returns how the arrays are streamed.
io::DriveOptions plan_attention(const AttendOptions& opt, const std::vector<Sequence>& seqs,
                                const Projections& p, unsigned asks, const LayerOptions& o,
                                std::size_t value_bytes) {
    const LayerShape& layer = p.layer;
    const bool tiled = o.path == attn::AttentionPath::tiled;
    const bool summaries = asks & ask::summaries, n_wide = asks & (ask::rows | ask::summaries);
    std::vector<SequenceShape> sizes;
    for (const auto& s : seqs) sizes.push_back({s.n(), s.batch});
    const RunPlan plan = sequence_run_plan(layer, sizes, o, value_bytes, n_wide);
    const std::uint64_t bytes =
        summaries ? runtime::checked_add(
                        plan.bytes, model::run_summaries_bytes(sizes, layer.heads, value_bytes),
                        "the attention")
                  : plan.bytes;
    const std::string weights = "the weight matrices W_q, W_k, W_v, W_o";
    runtime::reserve(bytes, plan.weights > bytes / 2 ? weights
                            : !opt.input.empty()     ? "--input: " + plan.what
                            : tiled                  ? plan.what
                                                     : "the attention scores");
    std::uint64_t x_values = 0, given_values = 0;
    for (const auto& s : seqs)
        for (const auto& x : s.x) x_values += x.size();
    for (const auto* a : {&p.q, &p.k, &p.v, &p.o})
        if (*a) given_values += (*a)->values.size();
    runtime::reserve(making_weights_bytes(layer, x_values, given_values, value_bytes), weights);
    // The next block is made on a second thread only where making it is the work (n x n rows
    // computed by the kernel, summaries): a held array's block is a copy, and a thread per
    // block cost 1,024 thread starts at n = 65,536.
    return {plan.block_rows, tiled && n_wide && thread_count(opt.out) > 1};
}

}  // namespace

template <class T>
AttendSetup<T> setup_attention(const AttendOptions& opt, const Sequences& in, unsigned asks,
                               TorchGenerator& gen) {
    const std::vector<Sequence>& seqs = in.seqs;
    Projections proj = read_projections(opt, seqs.front().d_in());
    AttendSetup<T> s;
    s.layer = proj.layer;
    // --dtype bfloat16|float16: inputs, weights and biases rounded once to the dtype, as
    // model.to(dtype) and x.to(dtype) do; the layer then computes in it (attention/reduced.hpp)
    const std::optional<runtime::Reduced> reduced = io::reduced_format(opt.out.dtype);
    if (opt.pos.no_scale) s.base.scale = 1.0;
    s.base.path = use_tiled(opt, seqs) ? attn::AttentionPath::tiled : attn::AttentionPath::direct;
    s.base.keep_masked = asks & ask::masked;
    s.base.keep_unrotated = asks & ask::unrotated;
    s.base.dtype = reduced;
    s.drive = plan_attention(opt, seqs, proj, asks, s.base, sizeof(T));
    if (opt.input.empty())  // the sentences' rows (--input's were checked as they were read)
        for (std::size_t k = 0; k < seqs.size(); ++k)
            check_range(opt, "--embeddings", {seqs[k].x[0].data(), seqs[k].x[0].size()},
                        std::array{seqs[k].n(), seqs[k].d_in()}, in.names[k]);
    for (const auto& [file, option, path] :
         {std::tuple{&proj.q, "--wq", &opt.wq}, std::tuple{&proj.k, "--wk", &opt.wk},
          std::tuple{&proj.v, "--wv", &opt.wv}, std::tuple{&proj.o, "--wo", &opt.wo}})
        if (*file) check_range(opt, option, (*file)->values, (*file)->shape, *path);
    if (!opt.no_projection) s.par = make_parameters<T>(opt, proj, gen);
    proj = {};  // the files' values are par's blocks now (the run's plan leaves them out)
    if (reduced) s.par.round_to(*reduced);

    // --causal, --valid-len (one length for all or one per sequence), --mask-value
    MaskOptions mask;
    mask.causal = opt.causal;
    const bool fill = opt.given("--mask-value");
    if (fill) mask.fill = opt.mask_value;
    const std::vector<std::size_t> valid =
        opt.valid_len ? opt.valid_len->lengths : std::vector<std::size_t>{};
    s.masks = naming_option("--valid-len", [&] { return attn::sequence_masks(seqs, mask, valid); });
    if (fill) naming_option("--mask-value", [&] { check_fill(opt.mask_value); });
    if (opt.causal) s.mask_text += ", causal";
    if (opt.valid_len) s.mask_text += ", valid length " + opt.valid_len->text;
    if (fill) s.mask_text += fmt::format(", masked scores = {}", opt.mask_value);

    if (opt.given("--query")) s.query = static_cast<std::size_t>(opt.query);
    for (std::size_t k = 0; s.query && k < seqs.size(); ++k)
        if (*s.query >= seqs[k].n())
            throw UsageError(
                fmt::format("--query: {} is not a query position of {} ({} rows: 0..{})", opt.query,
                            in.names[k], seqs[k].n(), seqs[k].n() - 1));
    s.scheme =
        attention_scheme(opt.pos, s.layer.d_in, s.layer.heads, s.layer.d_k,
                         opt.no_projection ? "--no-projection" : "--dq");  // d_k = d_in there
    const auto& table = s.scheme.t5_table;                                 // (buckets, heads)
    check_range(opt, "--bias-table", {table.data(), table.size()},
                std::array{table.shape(0), table.shape(1)}, opt.pos.bias_table);
    return s;
}

template AttendSetup<float> setup_attention<float>(const AttendOptions&, const Sequences&, unsigned,
                                                   TorchGenerator&);
template AttendSetup<double> setup_attention<double>(const AttendOptions&, const Sequences&,
                                                     unsigned, TorchGenerator&);

}  // namespace attn::cli
