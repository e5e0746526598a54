// attn attend --model: options, the checkpoint opened (model_files: folder, config.json, the
// budget, safetensors), then the forward streamed into the writer.
#include "cli/attend_model.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

#include "attn/model/config.hpp"
#include "cli/arguments.hpp"
#include "cli/attend_model_lens.hpp"
#include "cli/common_options.hpp"
#include "cli/errors.hpp"
#include "cli/exit_code.hpp"
#include "cli/model_files.hpp"
#include "cli/tokenizer_files.hpp"
#include "io/format_columns.hpp"

namespace attn::cli {

namespace {

/// Every option of app and of its option groups (CLI11 keeps those as nameless subcommands).
void collect_options(const CLI::App& app, std::vector<const CLI::Option*>& out) {
    for (const CLI::Option* o : app.get_options()) out.push_back(o);
    for (const CLI::App* g :
         app.get_subcommands([](const CLI::App* a) { return a->get_name().empty(); }))
        collect_options(*g, out);
}

/// Options of attend that belong to the random model: every option but these.
void refuse_random_options(const CLI::App& attend) {
    CLI::App probe;
    OutputOptions dummy;
    add_output_options(probe, dummy);
    add_curve_columns(probe, dummy);  // --plot lines' curves, of either model
    std::vector<const CLI::Option*> shared, given;
    collect_options(probe, shared);
    std::set<std::string> allowed{"--model",  "--revision",   "--ids",     "--layer", "--head",
                                  "--show",   "--raw-tokens", "--prompts", "--query", "--help",
                                  "sentence", "--top",        "--position"};
    for (const CLI::Option* o : shared) allowed.insert(o->get_name());
    collect_options(attend, given);
    for (const CLI::Option* o : given) {
        if (o->count() == 0 || allowed.count(o->get_name())) continue;
        throw UsageError(
            fmt::format("{}: belongs to the random model; with --model the checkpoint fixes it",
                        o->get_name()));
    }
}

/// --query I: the row of scores, weights and context shown, a position of the n tokens.
std::optional<std::size_t> query_row(const CLI::App& attend, std::size_t n,
                                     const io::OutputSpec& spec) {
    const CLI::Option* q = attend.get_option_no_throw("--query");
    if (q == nullptr || q->count() == 0) return std::nullopt;
    if (spec.format == io::Format::html)
        throw UsageError("--query: -f html draws every query; leave --query out");
    const auto i = q->as<std::size_t>();
    if (i >= n)
        throw UsageError(fmt::format("--query: {} is not a query position of the {} tokens (0..{})",
                                     i, n, n - 1));
    return i;
}

/// What one prompt's run writes: its ids, their tokens as spelled and as labels show them.
struct PromptTokens {
    std::vector<std::int64_t> ids;
    std::vector<std::string> tokens, labels;
};

template <class T>
int run_typed(const model::ModelConfig& c, const runtime::TensorStore& source,
              const PromptTokens& p, const Spelling& spell, const AttendModelOptions& opt,
              const ModelArrays& arrays, const io::OutputSpec& spec) {
    const std::vector<std::int64_t>& ids = p.ids;
    const auto layers = parse_index_list(opt.layer, c.num_layers, "--layer");
    const auto heads = parse_index_list(opt.head, c.num_heads, "--head");
    model::Keep keep{arrays.has(Show::scores), arrays.has(Show::weights)};
    // a text longer than the model's context is the text's fault (--model), not --ids'
    model::ModelRun<T> run = naming_option(opt.ids_opt->count() ? "--ids" : "--model", [&] {
        return model::ModelRun<T>(c, source, ids, layers, heads, keep, arrays.has(Show::next));
    });
    if (arrays.any_summary()) run.summarise(arrays.summaries);
    bool lens = arrays.lens.top || arrays.lens.next;
    try {
        if (lens) run.lens(arrays.lens);  // no lens: exit 2, why
    } catch (const std::invalid_argument&) {
        if (!arrays.lens_if_any) throw;
        lens = false;  // the page is made without its table
    }
    if (arrays.values.norms || arrays.values.weights || arrays.values.rollout)
        run.values(arrays.values);
    run.record(arrays.has(Show::hidden), arrays.has(Show::context));
    std::vector<io::MatrixStream> streams =
        model_streams<T>(arrays, run, ids, p.tokens, p.labels, spell, spec);
    if (arrays.page_lens && lens) streams.push_back(lens_table_stream(run, p.labels, spell));
    io::Output output(spec, streams.size());
    io::drive(output.sink(), streams);
    output.commit();
    if (run.nonfinite())  // written as PyTorch gives them (NaN rows); where they came from:
        fmt::print(stderr, "attn: warning: a NaN or inf first appears at {}\n",
                   run.nonfinite()->describe());
    return kOk;
}

}  // namespace

std::vector<std::size_t> parse_index_list(const std::string& text, std::size_t length,
                                          const std::string& option) {
    std::vector<std::size_t> out;
    if (text.empty()) {
        for (std::size_t i = 0; i < length; ++i) out.push_back(i);
        return out;
    }
    for (const std::string& item : split_list(text)) {
        const Slice s = naming_option(option, [&] { return parse_slice(item, length); });
        for (std::size_t k = 0; k < s.size(); ++k) out.push_back(s[k]);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::shared_ptr<AttendModelOptions> add_attend_model_options(CLI::App& attend) {
    auto opt = std::make_shared<AttendModelOptions>();
    auto* g = attend.add_option_group("Model");
    add_model_options(*g, opt->model);
    opt->ids_opt =
        g->add_option("--ids", opt->ids, "With --model: the token ids, comma-separated (no text)")
            ->type_name("LIST");
    g->add_option("--layer", opt->layer,
                  "With --model: layers, e.g. 3, 2,5, 3:6, -1 (the last); default all")
        ->type_name("LIST");
    g->add_option("--head", opt->head, "With --model: query heads, as --layer; default all")
        ->type_name("LIST");
    opt->prompts_opt = add_file_option(*g, "--prompts", opt->prompts,
                                       "With --model: one prompt a line (.jsonl: {\"text\"} or "
                                       "{\"ids\"} objects; - standard input); shows head_stats "
                                       "and offsets over all of them");
    g->add_flag("--raw-tokens", opt->raw_tokens,
                "With --model: label pictures, pages and tables with the tokens as the "
                "vocabulary spells them (\"\u0120is\") rather than the text they stand for");
    add_lens_options(*g, *opt);
    return opt;
}

int run_attend_model(const AttendModelOptions& opt, const std::string* text,
                     const std::string& show, const OutputOptions& out, const CLI::App& attend) {
    refuse_random_options(attend);
    if (opt.prompts_opt->count()) {
        if (text || opt.ids_opt->count())
            throw UsageError(
                fmt::format("--prompts: gives the prompts; it cannot be combined "
                            "with {}",
                            text ? "a text" : "--ids"));
        if (const CLI::Option* q = attend.get_option_no_throw("--query"); q && q->count())
            throw UsageError(
                "--query: a row of one prompt's arrays; with --prompts attend writes "
                "head_stats and offsets over all the prompts");
        return run_attend_prompts(opt, show, resolve_output(out));
    }
    if (opt.ids_opt->count() == 0 && !text)
        throw UsageError("--model: give a text, the token ids with --ids, or --prompts FILE");
    if (text && opt.ids_opt->count())
        throw UsageError("--ids: gives the tokens; it cannot be combined with a text");
    const io::OutputSpec spec = resolve_output(out);
    OpenModel m = open_model_config(opt.model);  // the weights once the tokens are known
    m.config.compute_dtype = io::reduced_format(spec.dtype);  // --dtype bfloat16|float16
    const model::ModelConfig& c = m.config;
    PromptTokens p;  // with --ids, the tokens and labels are the ids
    std::vector<std::int64_t>& ids = p.ids;
    std::vector<std::string>& tokens = p.tokens;
    std::optional<text::Tokenizer> tokenizer;
    if (text) {  // the model's own tokenizer, special tokens included
        tokenizer = load_tokenizer(m.source);
        const auto encoding = tokenizer->encode(*text);
        for (const auto id : encoding.ids) ids.push_back(static_cast<std::int64_t>(id));
        tokens.assign(encoding.tokens.begin(), encoding.tokens.end());
        if (ids.empty()) throw UsageError("--model: the text gives no tokens");
        for (const auto id : ids)
            if (static_cast<std::uint64_t>(id) >= c.vocab_size)
                throw UsageError(
                    fmt::format("--model: the tokenizer gives id {}, beyond the "
                                "model's vocab_size {}",
                                id, c.vocab_size));
    } else {
        ids = naming_option("--ids", [&] { return parse_token_ids(opt.ids, c.vocab_size); });
        for (const auto id : ids) tokens.push_back(std::to_string(id));
    }
    // labels: the text each token stands for (or, --raw-tokens, its spelling)
    const auto label = [&tokenizer, &opt](const std::string& token) {
        return tokenizer && !opt.raw_tokens ? tokenizer->label(token) : token;
    };
    for (const std::string& t : tokens) p.labels.push_back(label(t));
    // next's token column: the tokenizer's spelling of an id (with --ids, the id)
    Spelling spell;
    spell.spelled = [&tokenizer](std::int64_t id) {
        const auto t = tokenizer ? tokenizer->token(static_cast<text::TokenId>(id)) : std::nullopt;
        return t ? *t : std::to_string(id);
    };
    spell.label = [spelled = spell.spelled, label](std::int64_t id) { return label(spelled(id)); };
    io::OutputSpec titled = spec;  // the page names the model (as given) and the text
    if (io::format_columns(spec.format).page && !spec.style.picture.title)
        titled.style.picture.title =
            text ? fmt::format("{}: \"{}\"", opt.model.model, *text)
                 : fmt::format("{}: ids {}", opt.model.model, fmt::join(ids, ","));
    // one page holding the arrays (-o DIR/ writes a page per array, as before)
    const bool page = io::format_columns(spec.format).page && !spec.directory;
    ModelArrays arrays = page ? page_arrays(opt, show, c, ids.size())
                              : parse_model_show(show.empty() ? "weights" : show, c);
    arrays.query = query_row(attend, ids.size(), spec);
    if (!page) lens_options(opt, ids.size(), c.vocab_size, arrays);
    const bool wide = spec.dtype == io::Dtype::float64;
    // --max-memory for what the arrays keep (no n x n array: the fused kernel), then every
    // tensor present with its shape and dtype before a block runs
    // (the --show table's ask:: bits: head_stats and offsets stream from the fused kernel;
    // mean_weights, rollout and the value arrays sum n x n)
    model::ForwardKeep keep;
    unsigned asks = 0;
    for (const Show s : arrays.shown) asks |= attend_array(s).asks;
    const std::size_t layers = parse_index_list(opt.layer, c.num_layers, "--layer").size();
    const std::size_t heads = parse_index_list(opt.head, c.num_heads, "--head").size();
    keep.square = asks & ask::square;
    if (asks & ask::hidden) keep.hidden = layers + 1;
    if (asks & ask::contexts) keep.contexts = layers * heads;
    if (arrays.lens.top || arrays.lens.next)  // the unembedding's blocks, each layer's top K
        keep.lens = {layers, arrays.lens.top ? arrays.lens.k : 0,
                     arrays.lens.next || !arrays.lens.position};
    open_weights(m, ids.size(), wide ? 8 : 4, keep);
    return wide ? run_typed<double>(c, m.weights(), p, spell, opt, arrays, titled)
                : run_typed<float>(c, m.weights(), p, spell, opt, arrays, titled);
}

}  // namespace attn::cli
