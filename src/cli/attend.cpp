// attn attend: self-attention of a sentence, step by step as the notebook shows it
// (vocabulary, ids, embeddings, Q, K, V, omega, weights, context), or of given rows: the
// options, and a run: its inputs and setup (attend_inputs.cpp), attn::forward per sequence and
// batch element (attn/attention/sequence.hpp), the --show table (attend_arrays.cpp) written.
#include "cli/attend.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/attention/layer.hpp"
#include "attn/attention/permutation.hpp"
#include "cli/arguments.hpp"
#include "cli/attend_model.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/completion.hpp"
#include "cli/enum_option.hpp"
#include "cli/errors.hpp"
#include "cli/exit_code.hpp"
#include "io/format_columns.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

namespace {

const NameTable<UnknownWord> kUnknown{
    {"error", UnknownWord::error}, {"zero", UnknownWord::zero}, {"random", UnknownWord::random}};
const NameTable<Rng> kRng{{"torch", Rng::torch}};
const NameTable<TorchKernel> kKernels{{"avx2", TorchKernel::avx2}, {"scalar", TorchKernel::scalar}};
const NameTable<ProjectionInit> kInits{{"rand", ProjectionInit::rand},
                                       {"linear", ProjectionInit::linear}};
const NameTable<AttentionPath> kPaths{{"auto", AttentionPath::automatic},
                                      {"direct", AttentionPath::direct},
                                      {"tiled", AttentionPath::tiled}};

// A width (d_in, d_q, d_k, d_v): an integer in [1, 2^24].
CLI::Option* add_width(CLI::App& g, const char* name, std::int64_t& width, const char* help) {
    return g.add_option(name, width, help)
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24));
}

// --permute: "reverse" or a comma list of indices (cli/arguments' grammar).
enum class PermuteWord { reverse };
const NameTable<PermuteWord> kPermuteWords{{"reverse", PermuteWord::reverse}};

Permute parse_permute(const std::string& text) {
    if (lookup_name(kPermuteWords, text)) return {true, {}};
    return {false, parse_indices(text, "an index; give reverse or a permutation of 0..n-1")};
}

// --permute for a sequence of n rows, a permutation of 0..n-1 (attn::check_permutation, its
// message naming `where`).
std::vector<std::size_t> permutation_for(const Permute& permute, std::size_t n,
                                         const std::string& where) {
    if (permute.reverse) return reverse_permutation(n);
    naming_option("--permute", [&] { check_permutation(permute.indices, n, where); });
    return permute.indices;
}

// --valid-len: a comma list of lengths (cli/arguments' grammar), the text kept for titles.
ValidLengths parse_valid_len(const std::string& text) {
    return {parse_indices(text, "a length (a non-negative integer)"), text};
}

// The options that cannot be given together; --no-projection's last three in the order they
// were always named: --heads and --init conflict by value (more than one head, other draws).
void check_attend_conflicts(const AttendOptions& opt) {
    const std::string no_w = "Q = K = V = X has no projections; it cannot be combined with ";
    check_conflicts(
        *opt.app,
        {{"--input",
          {"sentence", "--embeddings", "--vocab", "--lowercase", "--strip-punctuation", "--unknown",
           "--vocab-size", "--embed-dim"},
          "gives the rows to attend over; it cannot be combined with {}"},
         {"--embed-dim", {"--embeddings"}, "the dimension comes from {} " + opt.embeddings},
         {"--no-projection",
          {"--dq", "--dk", "--dv", "--wq", "--wk", "--wv", "--wo", "--out-proj"},
          no_w + "{}"},
         {"--bias",
          {"--wq", "--wk", "--wv", "--wo"},
          "draws every projection with its bias; it cannot be combined with {}"}});
    if (opt.no_projection && (opt.heads != 1 || opt.bias || opt.init != ProjectionInit::rand))
        throw UsageError("--no-projection: " + no_w +
                         (opt.heads != 1 ? "--heads"
                          : opt.bias     ? "--bias"
                                         : "--init"));
}

// An html page draws the weights (its default --show) of every query of one sentence.
void check_html(const AttendOptions& opt, const std::vector<Show>& show, bool from_stdin) {
    if (show != std::vector<Show>{Show::weights})
        throw UsageError(
            "--show: -f html draws the attention weights; use --show weights (the "
            "default) or another format for " +
            opt.show);
    if (opt.given("--query"))
        throw UsageError("--query: -f html draws every query; leave --query out");
    if (from_stdin)
        throw UsageError(
            "--format html: a page draws one sentence; give it as the SENTENCE argument");
}

template <class T>
int run_typed(const AttendOptions& opt, Sequences& in, bool indexed, TorchGenerator& gen,
              const std::vector<Show>& show, const io::OutputSpec& spec) {
    std::vector<Sequence>& seqs = in.seqs;
    const auto& table = attend_show_table<T>();
    const AttendSetup<T> setup = setup_attention<T>(opt, in, show_asks(table, show), gen);
    const LayerShape& layer = setup.layer;

    // The attention itself (attn::forward), per sequence and batch element, on the path
    // chosen: every scheme, mask and --permute on either. With --permute the sequence's labels
    // and X are shown permuted, and the layer is run on X[p] and on X for the equivariance.
    LayerWeights<T> weights = setup.par.views();
    weights.identity = opt.no_projection;  // Q = K = V = X
    std::shared_ptr<io::Progress> progress;
    if (setup.base.path == attn::AttentionPath::tiled)
        progress = std::make_shared<io::Progress>("attend", 0, !opt.out.quiet && !spec.to_terminal);
    std::vector<SequenceRun<T>> runs(seqs.size());
    for (std::size_t k = 0; k < seqs.size(); ++k) {
        std::vector<std::size_t> p;
        if (opt.permute) p = permutation_for(*opt.permute, seqs[k].n(), in.names[k]);
        LayerOptions o = setup.base;
        if (progress) {
            progress->add_total(seqs[k].x.size() * layer.heads * seqs[k].n());
            o.progress = [progress](std::size_t rows) { progress->advance(rows); };
        }
        static_cast<SequenceResult<T>&>(runs[k]) =
            attend_sequence(seqs[k], p, weights, setup.scheme, setup.masks[k], o);
        if (!p.empty()) seqs[k] = permuted(seqs[k], p);  // labels and X as attended
    }
    const bool binary = io::format_columns(spec.format).numpy;
    auto arrays = [&](std::size_t k, Show item) {
        const SentenceArrays<T> a{seqs[k],  runs[k],         setup.par, layer, setup.query,
                                  in.title, setup.mask_text, progress,  binary};
        io::MatrixStream e = show_entry(table, item).stream(a);
        if (e.info.dtype != io::Dtype::int64) e.info.dtype = spec.dtype;
        return e;
    };

    // per sentence, its arrays; from standard input, one entry per sentence and array
    // (<array>_<k>) or one array per item with the sentence index first (a shorter sentence's
    // missing keys: weights 0, else NaN)
    std::vector<std::vector<io::MatrixStream>> parts(seqs.size());
    std::vector<double> pad;
    for (Show item : show) pad.push_back(item == Show::weights ? 0.0 : std::nan(""));
    for (std::size_t k = 0; k < seqs.size(); ++k)
        for (Show item : show) parts[k].push_back(arrays(k, item));
    const std::vector<io::MatrixStream> streams =
        indexed ? io::join_parts(std::move(parts), "sentence", spec.holds_several_arrays(), pad)
                : std::move(parts.front());
    io::Output output(spec, streams.size());
    io::drive(output.sink(), streams, setup.drive);
    output.commit();
    return kOk;
}

int run_attend(const AttendOptions& opt) {
    const bool from_input = !opt.input.empty();
    const bool indexed = !from_input && !opt.given("sentence");
    check_attend_conflicts(opt);

    const io::OutputSpec spec = resolve_output(opt.out);
    unsigned have = opt.no_projection ? 0 : need::projections;
    if (!from_input) have |= need::tokens;
    if (opt.out_proj || !opt.wo.empty()) have |= need::out_proj;
    if (opt.pos.scheme != positions::Scheme::none) have |= need::scheme;
    if (opt.permute) have |= need::permute;
    if (io::format_columns(spec.format).numpy) have |= need::binary;
    const bool html = io::format_columns(spec.format).page;
    const std::vector<Show> show = parse_show(!opt.show.empty()  ? opt.show
                                              : html             ? "weights"
                                              : spec.to_terminal ? "all"
                                                                 : "context",
                                              have);
    if (html) check_html(opt, show, indexed);
    if (indexed && io::format_columns(spec.format).numpy && !spec.holds_several_arrays())
        throw UsageError(
            "--format npy: one array cannot carry the sentence index of sentences read "
            "from standard input; use csv, tsv, npz, json or -o DIR/");

    TorchGenerator gen(opt.seed, opt.rng_kernel);
    Sequences in = read_sequences(opt, indexed, gen);
    if (spec.dtype == io::Dtype::float64)
        return run_typed<double>(opt, in, indexed, gen, show, spec);
    return run_typed<float>(opt, in, indexed, gen, show, spec);
}

}  // namespace

Command add_attend(CLI::App& root) {
    auto opt = std::make_shared<AttendOptions>();  // bound addresses must outlive parse()
    CLI::App* sub = root.add_subcommand(
        "attend", "Self-attention of a sentence, step by step as the notebook, or of given rows");
    opt->app = sub;
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
    add_width(*g_tok, "--embed-dim", opt->embed_dim, "Columns of the nn.Embedding table (d_in)")
        ->capture_default_str();
    add_file_option(
        *g_tok, "--embeddings", opt->embeddings,
        "Word vectors: word2vec/GloVe text (word, then its values, per line) or an .npy "
        "table (rows by id, or by --vocab)");
    add_file_option(*g_tok, "--vocab", opt->vocab,
                    "Words naming the rows of an --embeddings .npy, one per line");
    add_enum_option(*g_tok, "--unknown", opt->unknown, kUnknown,
                    "A word without a vector: error, zero or random (randn)");
    add_file_option(*g_tok, "--input", opt->input,
                    "Attend over the rows of an .npy (n x d) or batch (b x n x d); - = stdin");

    auto* g_par = sub->add_option_group("Parameters");
    add_enum_option(*g_par, "--rng", opt->rng, kRng, "Random generator");
    g_par
        ->add_option("--seed", opt->seed,
                     "torch.manual_seed before the embedding and again before W")
        ->transform(torch_seed())
        ->capture_default_str();
    add_enum_option(*g_par, "--rng-kernel", opt->rng_kernel, kKernels,
                    "libtorch's kernels to imitate: avx2 (x86-64 with AVX2) or scalar (without)");
    add_width(*g_par, "--dq", opt->dq, "Query width d_q per head (--input: the input's width)")
        ->capture_default_str();
    add_width(*g_par, "--dk", opt->dk, "Key width d_k (default and only value: d_q)");
    add_width(*g_par, "--dv", opt->dv, "Value width d_v per head (--input: the input's width)")
        ->capture_default_str();
    add_enum_option(*g_par, "--init", opt->init, kInits,
                    "rand: torch.rand(d_in, d_out) as the notebook; linear: nn.Linear(d_in, "
                    "d_out, bias=False) weight, transposed");
    add_file_option(*g_par, "--wq", opt->wq,
                    "W_query from an .npy: (d_in, d_q), (d_in, H d_q) or (H, d_in, d_q)");
    add_file_option(*g_par, "--wk", opt->wk, "W_key from an .npy, shaped as --wq");
    add_file_option(*g_par, "--wv", opt->wv,
                    "W_value from an .npy: (d_in, d_v), (d_in, H d_v) or (H, d_in, d_v)");
    add_file_option(*g_par, "--wo", opt->wo,
                    "W_o from an .npy: (H d_v, d_out); implies --out-proj");
    g_par->add_option("--heads", opt->heads, "Independent heads, contexts concatenated")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{4096}))
        ->capture_default_str();
    g_par->add_flag("--out-proj", opt->out_proj,
                    "Project the concatenated contexts by W_o (H d_v x H d_v)");
    g_par->add_flag("--no-projection", opt->no_projection,
                    "Q = K = V = X, no W: the context is softmax(X X^T / sqrt(d)) X");

    g_par->add_flag("--bias", opt->bias,
                    "Projection biases, nn.Linear(bias=True): each drawn after its weight");
    auto* g_pos = sub->add_option_group("Positions");
    add_attention_positions(*g_pos, opt->pos);
    add_parsed_option(*g_pos, "--permute", opt->permute, parse_permute,
                      "Reorder the tokens (rows) first: new position i holds old token LIST[i]; "
                      "reverse")
        ->type_name("LIST|reverse");
    auto* g_mask = sub->add_option_group("Masks");
    g_mask->add_flag("--causal", opt->causal, "Query i sees keys j <= i only");
    add_parsed_option(*g_mask, "--valid-len", opt->valid_len, parse_valid_len,
                      "Keys at positions >= L are masked; L1,L2,... one per sequence")
        ->type_name("L[,L...]");
    g_mask
        ->add_option("--mask-value", opt->mask_value,
                     "Fill masked scaled scores with V before the softmax (the book: -1e6) "
                     "instead of exact zeros")
        ->type_name("V");

    auto* g_show = sub->add_option_group("What to print");
    std::vector<std::string> show_words;
    for (const AttendArray& a : attend_arrays()) show_words.push_back(a.name);
    const CLI::Option* show_option =
        g_show
            ->add_option("--show", opt->show,
                         fmt::format("Comma list of {}, or all (default: all on a terminal, else "
                                     "context; --model: weights)",
                                     fmt::join(show_words, ", ")))
            ->type_name("LIST");
    show_words.insert(show_words.begin(), "all");
    complete_values(show_option, show_words, true);
    g_show->add_option("--query", opt->query, "Only the rows of query position I")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
        ->type_name("I");
    add_enum_option(*g_par, "--attention", opt->attention, kPaths,
                    "direct: the n x n matrices held (the notebook's numbers); tiled: fused "
                    "kernel, no n x n matrix held; auto: tiled when n_q n_k > 4194304");
    add_output_options(*sub, opt->out, true);
    add_curve_columns(*sub, opt->out);
    const auto model = add_attend_model_options(*sub);  // --model: attend_model.cpp

    sub->footer(
        "Examples:\n"
        "  attn attend \"Life is short, eat dessert first\"             the notebook, step by "
        "step\n"
        "  attn attend \"Life is short, eat dessert first\" --show scores --query 1 -f csv   "
        "omega_2\n"
        "  attn attend \"Life is short, eat dessert first\" --heads 4 --dv 1 --causal\n"
        "  attn encode -n 10 -d 8 -f npy | attn attend --input - --dq 8 --dv 8 -o out.npz --show "
        "all\n"
        "  printf 'a b c\\nd e\\n' | attn attend --show weights -f csv    one sentence per line\n"
        "  attn attend \"Life is short, eat dessert first\" --scheme sinusoidal --permute reverse "
        "--show equivariance\n"
        "  attn attend --model openai-community/gpt2 \"Life is short, eat dessert first\" --layer "
        "5 --show weights,head_stats,next -o gpt2.npz\n"
        "  attn attend --model openai-community/gpt2 --prompts texts.txt --show head_stats,offsets "
        "-o stats.npz\n" +
        attend_show_help());
    return {sub,
            [opt, model, sub] {
                if (model->given())
                    return run_attend_model(*model,
                                            opt->given("sentence") ? &opt->sentence : nullptr,
                                            opt->show, opt->out, *sub);
                if (model->prompts_opt->count())  // the random model's sentences: stdin lines
                    throw UsageError(
                        "--prompts: needs --model; the random model reads one "
                        "sentence a line from standard input");
                return run_attend(*opt);
            },
            &opt->out};
}

}  // namespace attn::cli
