// attn heads: options, the model and tokenizer opened once (setup_heads), then each prompt's
// forward with every selected head's weights streamed in row blocks into its HeadSums.
#include "cli/heads.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "attn/model/head_probe.hpp"
#include "attn/model/run.hpp"
#include "cli/arguments.hpp"
#include "cli/attend_model.hpp"
#include "cli/command.hpp"
#include "cli/enum_option.hpp"
#include "cli/exit_code.hpp"
#include "cli/model_files.hpp"
#include "cli/prompts.hpp"
#include "cli/tokenizer_files.hpp"
#include "io/gguf.hpp"
#include "io/progress.hpp"
#include "runtime/ordered_pipeline.hpp"

namespace attn::cli {

namespace {

const NameTable<model::Measure> kMeasures{
    {"rows", model::Measure::rows}, {"mul", model::Measure::mul}, {"abs", model::Measure::abs}};

/// What runs without a prompt: the repeat probe, [BOS] r_1 .. r_N r_1 .. r_N.
enum class Probe { repeat };
const NameTable<Probe> kProbes{{"repeat", Probe::repeat}};

struct HeadsOptions {
    ModelOptions model;
    std::optional<std::string> text;
    std::optional<std::string> ids;
    std::string prompts;  // --prompts FILE
    CLI::Option* prompts_opt = nullptr;
    std::string layer, head;
    model::Measure measure = model::Measure::rows;
    bool exclude_bos = false, exclude_self = false;
    Probe probe = Probe::repeat;
    std::size_t probe_count = 8;
    std::optional<std::size_t> probe_length;
    std::string probe_ids;
    std::vector<const CLI::Option*> probe_opts;  // --probe, --probe-count, ...
    std::uint64_t seed = 0;
    bool partial = false;
    std::string show = "scores";
    OutputOptions out;
};

/// What setup_heads opens and decides once, before any forward.
struct HeadsSetup {
    OpenModel m;
    HeadsRun run;
    RunIdentity identity;
    model::Exclusions exclusions;
    /// Each prompt as messages name it: "--prompts: FILE, line K", "--probe: prompt K",
    /// "--ids", "TEXT".
    std::vector<std::string> where;
};

/// One prompt's sums (one a head, as HeadsRun::sums) and where its forward first held a NaN
/// or an infinity.
struct PromptSums {
    std::size_t prompt = 0;
    std::vector<model::HeadSums> sums;
    std::optional<model::NonFinite> nonfinite;
};

std::optional<std::int64_t> config_id(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<std::int64_t>();
}

nlohmann::json config_json(const io::ModelSource& source) {
    return nlohmann::json::parse(source.config_json(), nullptr, false);  // parsed once before
}

/// A GGUF file's BOS as its tokenizer reads it: tokenizer.ggml.bos_token_id, else (the key
/// absent) the one token the tokenizer puts before every text by llama.cpp's defaults, else
/// none.
std::optional<std::int64_t> gguf_bos(const io::GgufFile& file, const text::Tokenizer* tokenizer) {
    if (const auto id = file.metadata().unsigned_integer("tokenizer.ggml.bos_token_id"))
        return static_cast<std::int64_t>(*id);
    if (tokenizer && tokenizer->prefix().size() == 1) return tokenizer->prefix().front().id;
    return std::nullopt;
}

/// The model opened (model_files), the prompts made or read (the tokenizer built once), the
/// weights mapped for the longest prompt: everything the per-prompt loop needs.
HeadsSetup setup_heads(const HeadsOptions& opt, const io::OutputSpec& spec) {
    const bool file = opt.prompts_opt->count() > 0;
    const int given = (opt.text ? 1 : 0) + (opt.ids ? 1 : 0) + (file ? 1 : 0);
    if (given > 1)
        throw UsageError("--ids: give one of a TEXT, --ids or --prompts FILE, not several");
    if (given > 0)
        for (const CLI::Option* o : opt.probe_opts)
            if (o->count() > 0)
                throw UsageError(fmt::format(
                    "{}: sets the probe, which runs only without a TEXT, --ids or --prompts",
                    o->get_name()));
    HeadsSetup s{open_model_config(opt.model), {}, {}, {}, {}};
    s.m.config.compute_dtype = io::reduced_format(spec.dtype);
    const model::ModelConfig& c = s.m.config;
    const nlohmann::json config = config_json(s.m.source);
    std::optional<text::Tokenizer> tokenizer;  // built once; texts need it, the probe uses it
    if (s.m.source.tokenizer_files() != io::TokenizerFiles::none ||
        (opt.text || (file && !opt.prompts.ends_with(".jsonl"))))
        tokenizer = naming_option("--model", [&] { return load_tokenizer(s.m.source); });
    std::vector<std::string> probe_line;
    if (opt.text) {
        const auto e = naming_option("TEXT", [&] { return tokenizer->encode(*opt.text); });
        s.run.prompts.emplace_back(e.ids.begin(), e.ids.end());
        if (s.run.prompts.back().empty()) throw UsageError("TEXT: the text gives no tokens");
        s.where = {"TEXT"};
    } else if (opt.ids) {
        s.run.prompts.push_back(
            naming_option("--ids", [&] { return parse_token_ids(*opt.ids, c.vocab_size); }));
        s.where = {"--ids"};
    } else if (file) {
        s.run.prompts =
            read_prompts(opt.prompts, tokenizer ? &*tokenizer : nullptr, c.vocab_size, &s.where);
    } else {  // the probe
        std::size_t context = 0;
        for (const char* key : {"n_positions", "max_position_embeddings", "n_ctx"})
            if (const auto v = config_id(config, key); v && *v > 0 && context == 0)
                context = static_cast<std::size_t>(*v);
        const std::size_t most = context ? (context - 1) / 2 : 50;
        if (opt.probe_length && (*opt.probe_length == 0 || *opt.probe_length > most))
            throw UsageError(fmt::format(
                "--probe-length: {} is not in 1 to {} (a probe of N holds 1 + 2 N tokens; {})",
                *opt.probe_length, most,
                context ? fmt::format("the model's context is {}", context)
                        : std::string("the config gives no context, so 50 at most")));
        const std::size_t length = opt.probe_length.value_or(std::min<std::size_t>(50, most));
        std::vector<std::int64_t> allowed;
        if (tokenizer) {
            allowed = allowed_probe_ids(*tokenizer, c.vocab_size, opt.probe_ids);
        } else {  // no tokenizer files: the config's vocabulary without its special ids
            std::vector<std::int64_t> special;
            for (const char* key : {"bos_token_id", "eos_token_id", "pad_token_id"})
                if (const auto v = config_id(config, key)) special.push_back(*v);
            allowed = naming_option(
                "--probe-ids", [&] { return allowed_range(opt.probe_ids, c.vocab_size, special); });
        }
        // design.md: "BOS is the config's bos_token_id when it has one"; a GGUF file's is
        // tokenizer.ggml.bos_token_id, "a key that is absent defaults as llama.cpp's
        // vocabulary loader decides" (as its tokenizer reads it)
        const auto bos = s.m.source.gguf()
                             ? gguf_bos(*s.m.source.gguf(), tokenizer ? &*tokenizer : nullptr)
                             : config_id(config, "bos_token_id");
        s.run.prompts = model::repeat_probe(allowed, bos, opt.probe_count, length, opt.seed);
        for (std::size_t p = 0; p < s.run.prompts.size(); ++p)
            s.where.push_back(fmt::format("--probe: prompt {}", p + 1));
        probe_line = {fmt::format("--probe={}", name_of(kProbes, opt.probe)),
                      fmt::format("--probe-count={}", opt.probe_count),
                      fmt::format("--probe-length={}", length),
                      fmt::format("--probe-ids={}", opt.probe_ids),
                      fmt::format("--seed={}", opt.seed)};
    }
    s.run.layers = parse_index_list(opt.layer, c.num_layers, "--layer");
    s.run.heads = parse_index_list(opt.head, c.num_heads, "--head");
    s.run.measure = opt.measure;
    s.run.sums.resize(s.run.layers.size() * s.run.heads.size());
    s.exclusions = {opt.exclude_bos, opt.exclude_self};
    std::size_t longest = 0;
    for (const auto& p : s.run.prompts) longest = std::max(longest, p.size());
    const bool wide = spec.dtype == io::Dtype::float64;
    // design.md (Long inputs): heads "never holds an n x n matrix": the weights stream in row
    // blocks from the fused kernel (a compute dtype runs the direct path: forward_bytes counts
    // its n x n arrays), nothing recorded; the argmax offsets (2n - 1 counts) of each head's
    // sums in the run and in the prompt's, and of the prompt's scorer
    model::ForwardKeep keep;
    keep.square = false;
    keep.offsets = 2 * s.run.sums.size() + 1;
    open_weights(s.m, longest, wide ? 8 : 4, keep);
    // the identity a partial carries: the model's, then the options that change numbers
    std::string config_line = "config=";
    config_line += config.dump();
    s.identity.model.push_back(std::move(config_line));
    for (const model::TensorSpec& t : model::model_tensors(c))  // the shapes open_weights checked
        s.identity.model.push_back(
            fmt::format("tensor {} ({})", t.names.front(), fmt::join(t.shape, ",")));
    s.identity.options = {fmt::format("--dtype={}", io::dtype_name(spec.dtype)),
                          fmt::format("--measure={}", name_of(kMeasures, opt.measure)),
                          fmt::format("--exclude-bos={}", opt.exclude_bos),
                          fmt::format("--exclude-self={}", opt.exclude_self),
                          fmt::format("--layer={}", fmt::join(s.run.layers, ",")),
                          fmt::format("--head={}", fmt::join(s.run.heads, ","))};
    for (const auto& line : probe_line) s.identity.options.push_back(line);
    return s;
}

/// One prompt's forward, every selected head's rows streamed into the prompt's own sums (one a
/// head, as run.sums): the serial and the threaded runs add these in prompt order.
template <class T>
PromptSums score_prompt(const HeadsSetup& s, std::size_t p) {
    const HeadsRun& run = s.run;
    const std::vector<std::int64_t>& ids = run.prompts[p];
    const std::size_t n = ids.size();
    model::ModelRun<T> forward = naming_option(s.where[p], [&] {
        return model::ModelRun<T>(s.m.config, s.m.weights(), ids, run.layers, run.heads,
                                  model::Keep{}, false);
    });
    forward.record(false, false);
    const std::size_t block = std::clamp<std::size_t>((1 << 16) / n, 1, n);
    std::vector<T> rows(block * n);  // (block, n): a block of one head's weight rows
    model::PromptHeadScorer scorer(ids, s.m.config.causal, s.exclusions);
    std::vector<model::HeadSums> sums(run.sums.size());
    for (std::size_t k = 0; k < run.layers.size(); ++k) {
        const LayerResult<T>& layer = forward.layer(k);
        for (std::size_t h = 0; h < run.heads.size(); ++h) {
            for (std::size_t r = 0; r < n; r += block) {
                const std::size_t count = std::min(block, n - r);
                ScoreRows<T> out;
                out.weights = rows.data();
                out.stride = n;
                layer.rows->rows(run.heads[h], r, count, out);
                scorer.add_rows(r, count, rows.data(), n);
            }
            scorer.finish(sums[k * run.heads.size() + h]);
        }
    }
    return {p, std::move(sums), forward.nonfinite()};
}

/// Every prompt's sums added to run.sums in prompt order, one prompt a thread, OpenBLAS on one
/// thread whatever --threads (runtime/ordered_pipeline.hpp): each prompt's numbers are those
/// of it run alone, and the sums the serial loop's, bit for bit, on any number of threads
/// (tests/cli/heads_threads_test.sh), so shards merge exactly as one run adds.
template <class T>
void run_prompts(HeadsSetup& s, bool progress) {
    HeadsRun& run = s.run;
    const std::size_t count = run.prompts.size();
    io::Progress bar("heads", count, progress);
    std::size_t next = 0;
    bool warned = false;
    runtime::ordered_pipeline(
        std::min(prompt_workers(s.m), count),
        [&]() -> std::optional<std::size_t> {
            return next < count ? std::optional<std::size_t>(next++) : std::nullopt;
        },
        [&](std::size_t p) { return score_prompt<T>(s, p); },
        [&](PromptSums&& p) {
            // design.md: a NaN or infinity "propagates as in PyTorch ... and one line on
            // standard error names where it first appeared" (the first prompt holding one)
            if (p.nonfinite && !warned) {
                const std::string& where = s.where[p.prompt];
                const bool named = where.starts_with("--prompts") || where.starts_with("--probe");
                fmt::print(stderr, "attn: warning: {}a NaN or inf first appears at {}\n",
                           named ? where + ": " : std::string(), p.nonfinite->describe());
                warned = true;
            }
            for (std::size_t i = 0; i < p.sums.size(); ++i) run.sums[i] += p.sums[i];
            bar.advance(1);
        });
}

int run_heads(const HeadsOptions& opt) {
    const io::OutputSpec spec = resolve_output(opt.out);
    const HeadsShow show = parse_heads_show(opt.show);
    if (opt.partial && spec.format != io::Format::npz)
        throw UsageError("--partial: writes the sums as npz; give -o PART.npz or -f npz");
    if (!opt.partial) check_heads_output(show, spec);
    HeadsSetup s = setup_heads(opt, spec);
    const bool progress = !opt.out.quiet && !spec.to_terminal;
    if (spec.dtype == io::Dtype::float64)
        run_prompts<double>(s, progress);
    else
        run_prompts<float>(s, progress);
    if (opt.partial)
        write_partial(s.run, s.identity, spec);
    else
        write_heads(s.run, show, spec);
    return kOk;
}

}  // namespace

Command add_heads(CLI::App& root) {
    auto opt = std::make_shared<HeadsOptions>();
    CLI::App* sub = root.add_subcommand(
        "heads",
        "What each head does: previous-token, duplicate, induction, sink, self and positional "
        "scores over a prompt, the probe or a file of prompts");
    add_model_options(*sub, opt->model);  // --model, --revision
    opt->model.model_opt->required();
    sub->add_option_function<std::string>(
        "text", [opt](const std::string& t) { opt->text = t; },
        "The prompt (absent, with no --ids or --prompts: the repeat probe)");
    sub->add_option_function<std::string>(
           "--ids", [opt](const std::string& t) { opt->ids = t; },
           "The prompt's token ids, comma-separated")
        ->type_name("LIST");
    opt->prompts_opt = add_file_option(
        *sub, "--prompts", opt->prompts,
        "One prompt a line (- for standard input), or a .jsonl file of {\"text\": ...} or "
        "{\"ids\": [...]} objects; the scores are over all of them");
    sub->add_option("--layer", opt->layer, "Layers, e.g. 3, 2,5, 3:6, -1 (the last); default all")
        ->type_name("LIST");
    sub->add_option("--head", opt->head, "Query heads, as --layer; default all")->type_name("LIST");
    add_enum_option(*sub, "--measure", opt->measure, kMeasures,
                    "previous, duplicate, induction as: rows (the mean pattern weight of the "
                    "queries that have one), TransformerLens's mul or abs");
    sub->add_flag("--exclude-bos", opt->exclude_bos,
                  "Leave key 0 out of the pattern scores (TransformerLens's exclude_bos)");
    sub->add_flag("--exclude-self", opt->exclude_self,
                  "Leave each query's own key out of the pattern scores "
                  "(exclude_current_token)");
    opt->probe_opts = {
        add_enum_option(*sub, "--probe", opt->probe, kProbes,
                        "What runs without a prompt: repeat, [BOS] r_1..r_N r_1..r_N"),
        sub->add_option("--probe-count", opt->probe_count, "The probe's prompts")
            ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
            ->capture_default_str(),
        sub->add_option_function<std::size_t>(
               "--probe-length", [opt](std::size_t n) { opt->probe_length = n; },
               "N, the probe's repeated tokens: [BOS] r_1..r_N r_1..r_N (default 50, at most "
               "(context - 1) / 2)")
            ->type_name("N"),
        sub->add_option("--probe-ids", opt->probe_ids,
                        "A:B: the probe draws ids A .. B - 1 (without special tokens); default "
                        "all")
            ->type_name("A:B"),
        sub->add_option("--seed", opt->seed, "The probe's torch.Generator seed")
            ->transform(torch_seed())
            ->capture_default_str()};
    sub->add_flag("--partial", opt->partial,
                  "Write the sums and counts as npz, for attn merge (shards of a data set)");
    sub->add_option("--show", opt->show,
                    "scores, prompts (the ids run) or scores,prompts (-f table, or -o DIR/ for "
                    "a file each; json and npz hold both, svg and png draw scores)")
        ->type_name("LIST")
        ->capture_default_str();
    add_output_options(*sub, opt->out, true);
    sub->footer(
        "Examples:\n"
        "  attn heads --model gpt2\n"
        "  attn heads --model tests/data/models/induction --probe-ids 0:26 -o heads.svg\n"
        "  attn heads --model gpt2 --prompts texts.txt --measure mul --exclude-bos -f json\n"
        "  attn heads --model gpt2 --prompts part1.txt --partial -o part1.npz; "
        "attn merge part*.npz\n");
    return {sub, [opt] { return run_heads(*opt); }, &opt->out};
}

}  // namespace attn::cli
