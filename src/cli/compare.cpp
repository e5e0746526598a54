// attn compare: options; model A (--model) and model B (--against, or A again in
// --against-dtype) opened and checked against each other (layers x heads, vocabulary,
// tokenizer); then each prompt through both forwards side by side (model/run_divergence.hpp).
#include "cli/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/model/families.hpp"
#include "attn/model/run_divergence.hpp"
#include "cli/arguments.hpp"
#include "cli/attend_model.hpp"
#include "cli/command.hpp"
#include "cli/enum_option.hpp"
#include "cli/exit_code.hpp"
#include "cli/model_files.hpp"
#include "cli/prompts.hpp"
#include "cli/tokenizer_files.hpp"
#include "io/model_locator.hpp"
#include "io/progress.hpp"

namespace attn::cli {

namespace {

const NameTable<io::Dtype> kDtypes{{"float32", io::Dtype::float32},
                                   {"float64", io::Dtype::float64},
                                   {"bfloat16", io::Dtype::bfloat16},
                                   {"float16", io::Dtype::float16}};

struct CompareOptions {
    ModelOptions model;   // A
    std::string against;  // --against B
    io::Dtype against_dtype = io::Dtype::float32;
    CLI::Option* against_opt = nullptr;
    CLI::Option* against_dtype_opt = nullptr;
    std::optional<std::string> text;
    std::optional<std::string> ids;
    std::string prompts;  // --prompts FILE
    CLI::Option* prompts_opt = nullptr;
    std::string show = "weights";
    OutputOptions out;
};

/// The two models and the prompts, decided before any forward.
struct CompareSetup {
    OpenModel a, b;
    io::Dtype a_dtype = io::Dtype::float32, b_dtype = io::Dtype::float32;
    std::vector<std::vector<std::int64_t>> prompts;
    std::string input;  // what a prompt's error names: TEXT, --ids or --prompts
};

/// B from --against: opened as --model opens A, its errors naming --against.
OpenModel open_against(const std::string& path) {
    ModelOptions b;
    b.model = path;
    try {
        return open_model_config(b);
    } catch (const io::ModelNotFound& e) {
        throw io::ModelNotFound(std::string("--against: ") + e.what(), e.looked_at);
    } catch (const UsageError& e) {
        const std::string what = e.what();
        if (what.starts_with("--model") || what.starts_with("--revision"))
            throw UsageError("--against" + what.substr(what.find(':')));
        throw UsageError("--against: " + what);
    }
}

/// The tokenizer of m, or nullopt when its files hold none attn reads.
std::optional<text::Tokenizer> try_tokenizer(const OpenModel& m) {
    try {
        return load_tokenizer(m.source);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

/// UsageError naming --against when B's vocabulary is not A's: a different vocab_size, or a
/// tokenizer that spells some id otherwise or splits the text otherwise.
void check_vocabularies(const CompareSetup& s, const text::Tokenizer* ta, const text::Tokenizer* tb,
                        const std::optional<std::string>& text) {
    const model::ModelConfig &a = s.a.config, &b = s.b.config;
    if (a.vocab_size != b.vocab_size)
        throw UsageError(fmt::format(
            "--against: its vocabulary has {} ids, --model's {}; compare needs A's tokenizer",
            b.vocab_size, a.vocab_size));
    if (ta == nullptr || tb == nullptr) return;
    for (std::size_t id = 0; id < a.vocab_size; ++id)
        if (ta->token(static_cast<text::TokenId>(id)) != tb->token(static_cast<text::TokenId>(id)))
            throw UsageError(fmt::format(
                "--against: its tokenizer spells id {} '{}', --model's '{}'; compare needs A's "
                "tokenizer",
                id, tb->token(static_cast<text::TokenId>(id)).value_or(""),
                ta->token(static_cast<text::TokenId>(id)).value_or("")));
    if (text && ta->encode(*text).ids != tb->encode(*text).ids)
        throw UsageError(
            "--against: its tokenizer splits TEXT otherwise than --model's; compare needs A's "
            "tokenizer");
}

CompareSetup setup_compare(const CompareOptions& opt, const io::OutputSpec& spec) {
    const bool file = opt.prompts_opt->count() > 0;
    if (!opt.text && !opt.ids && !file)
        throw UsageError("--model: give a text, the token ids with --ids, or --prompts FILE");
    if (file && (opt.text || opt.ids))
        throw UsageError(fmt::format("--prompts: gives the prompts; it cannot be combined with {}",
                                     opt.text ? "a text" : "--ids"));
    if (opt.text && opt.ids)
        throw UsageError("--ids: gives the tokens; it cannot be combined with a text");
    const bool by_model = opt.against_opt->count() > 0;
    if (by_model == (opt.against_dtype_opt->count() > 0))
        throw UsageError(
            "--against: give B, a model (--against M) or --model's in a dtype (--against-dtype "
            "float32|float64|bfloat16|float16), not both or neither");
    OpenModel first = open_model_config(opt.model);
    OpenModel second = by_model ? open_against(opt.against) : open_model_config(opt.model);
    CompareSetup s{std::move(first), std::move(second), spec.dtype, spec.dtype, {}, {}};
    s.input = opt.text ? "TEXT" : opt.ids ? "--ids" : "--prompts";
    if (!by_model) s.b_dtype = opt.against_dtype;
    s.a.config.compute_dtype = io::reduced_format(s.a_dtype);
    s.b.config.compute_dtype = io::reduced_format(s.b_dtype);
    const model::ModelConfig &a = s.a.config, &b = s.b.config;
    if (a.num_layers != b.num_layers || a.num_heads != b.num_heads)
        throw UsageError(fmt::format(
            "--against: {} layers x {} heads, --model {} layers x {} heads; compare needs the "
            "same shape",
            b.num_layers, b.num_heads, a.num_layers, a.num_heads));
    const bool texts = opt.text || (file && !PromptReader::jsonl(opt.prompts));
    std::optional<text::Tokenizer> ta, tb;
    if (texts) ta = naming_option("--model", [&] { return load_tokenizer(s.a.source); });
    if (texts && by_model) tb = try_tokenizer(s.b);
    check_vocabularies(s, ta ? &*ta : nullptr, tb ? &*tb : nullptr, opt.text);
    if (opt.text) {
        const auto e = naming_option("TEXT", [&] { return ta->encode(*opt.text); });
        s.prompts.emplace_back(e.ids.begin(), e.ids.end());
        if (s.prompts.back().empty()) throw UsageError("TEXT: the text gives no tokens");
        for (const auto id : s.prompts.back())
            if (static_cast<std::uint64_t>(id) >= a.vocab_size)
                throw UsageError(
                    fmt::format("TEXT: the tokenizer gives id {}, beyond the model's vocab_size {}",
                                id, a.vocab_size));
    } else if (opt.ids) {
        s.prompts.push_back(
            naming_option("--ids", [&] { return parse_token_ids(*opt.ids, a.vocab_size); }));
    } else {
        s.prompts = read_prompts(opt.prompts, ta ? &*ta : nullptr, a.vocab_size);
    }
    return s;
}

/// Each prompt through A (in TA) and B (in TB), reduced into r; a prompt's error names it.
/// Returns the warning lines for standard error: where a NaN or inf first appeared in A's runs
/// (naming --model) and in B's (naming b_option), at the first prompt that held one.
template <class TA, class TB>
std::vector<std::string> run_prompts(CompareSetup& s, const CompareShow& show, CompareResult& r,
                                     bool progress, const std::string& b_option) {
    io::Progress bar("compare", s.prompts.size(), progress);
    std::optional<std::string> warn_a, warn_b;
    const auto warning = [&](const std::string& option, std::size_t p, const model::NonFinite& at) {
        const std::string prompt =
            s.prompts.size() > 1 ? fmt::format("{}: prompt {}: ", s.input, p + 1) : "";
        return fmt::format("attn: warning: {}: {}a NaN or inf first appears at {}", option, prompt,
                           at.describe());
    };
    for (std::size_t p = 0; p < s.prompts.size(); ++p) {
        const std::string where =
            s.prompts.size() > 1 ? fmt::format("{}: prompt {}", s.input, p + 1) : s.input;
        const model::PairNonFinite at = naming_option(where, [&] {
            return model::add_prompt_divergence<TA, TB>(s.a.config, s.a.weights(), s.b.config,
                                                        s.b.weights(), s.prompts[p], show, r.runs);
        });
        if (at.a && !warn_a) warn_a = warning("--model", p, *at.a);
        if (at.b && !warn_b) warn_b = warning(b_option, p, *at.b);
        bar.advance(1);
    }
    std::vector<std::string> lines;
    for (const auto& w : {warn_a, warn_b})
        if (w) lines.push_back(*w);
    return lines;
}

int run_compare(const CompareOptions& opt) {
    const io::OutputSpec spec = resolve_output(opt.out);
    const CompareShow show = parse_compare_show(opt.show);
    check_compare_output(show, spec);
    CompareSetup s = setup_compare(opt, spec);
    if (show.next && !s.a.config.family->lm_head)
        throw UsageError(fmt::format("--show: next: {} has no next-token head (causal LMs: {})",
                                     s.a.config.model_type(), model::family_names(true)));
    std::size_t longest = 0;
    for (const auto& p : s.prompts) longest = std::max(longest, p.size());
    // the weights stream in row blocks (no n x n array held) except on the reduced path
    model::ForwardKeep keep_a, keep_b;
    if (show.hidden) keep_a.hidden = keep_b.hidden = s.a.config.num_layers + 1;
    keep_a.square = show.weights && s.a.config.compute_dtype.has_value();
    keep_b.square = show.weights && s.b.config.compute_dtype.has_value();
    const bool wide_a = s.a_dtype == io::Dtype::float64, wide_b = s.b_dtype == io::Dtype::float64;
    open_weights(s.a, longest, wide_a ? 8 : 4, keep_a);
    try {
        open_weights(s.b, longest, wide_b ? 8 : 4, keep_b);
    } catch (const UsageError& e) {
        const std::string what = e.what();
        throw UsageError(what.starts_with("--model") ? "--against" + what.substr(7) : what);
    }
    CompareResult r{{s.a.config.num_layers, s.a.config.num_heads}, {}};
    r.title = opt.against_opt->count()
                  ? fmt::format("{} against {}", opt.model.model, opt.against)
                  : fmt::format("{} in {} against {}", opt.model.model, io::dtype_name(s.a_dtype),
                                io::dtype_name(s.b_dtype));
    const bool progress = !opt.out.quiet && !spec.to_terminal;
    // B's option in its warnings: --against, or --against-dtype D for A itself in dtype D
    const std::string b_option = opt.against_opt->count()
                                     ? std::string("--against")
                                     : fmt::format("--against-dtype {}", io::dtype_name(s.b_dtype));
    std::vector<std::string> warnings;
    if (wide_a && wide_b)
        warnings = run_prompts<double, double>(s, show, r, progress, b_option);
    else if (wide_a)
        warnings = run_prompts<double, float>(s, show, r, progress, b_option);
    else if (wide_b)
        warnings = run_prompts<float, double>(s, show, r, progress, b_option);
    else
        warnings = run_prompts<float, float>(s, show, r, progress, b_option);
    write_compare(r, show, spec);
    // written as numpy computes them from the NaN rows (nan); where those came from:
    for (const std::string& w : warnings) fmt::print(stderr, "{}\n", w);
    return kOk;
}

}  // namespace

Command add_compare(CLI::App& root) {
    auto opt = std::make_shared<CompareOptions>();
    CLI::App* sub = root.add_subcommand(
        "compare",
        "How far two runs of one prompt are apart, head by head: model A against B (a model "
        "with A's tokenizer, a quantized GGUF of A) or against A in another dtype");
    add_model_options(*sub, opt->model);  // --model, --revision: A
    opt->model.model_opt->required();
    opt->against_opt =
        sub->add_option("--against", opt->against,
                        "B: a model with A's tokenizer and shape (a folder, ORG/NAME, a "
                        "FILE.gguf, ollama:NAME[:TAG])")
            ->type_name("M");
    opt->against_dtype_opt = add_enum_option(*sub, "--against-dtype", opt->against_dtype, kDtypes,
                                             "B: --model itself computed in this dtype");
    sub->add_option_function<std::string>(
        "text", [opt](const std::string& t) { opt->text = t; }, "The prompt");
    sub->add_option_function<std::string>(
           "--ids", [opt](const std::string& t) { opt->ids = t; },
           "The prompt's token ids, comma-separated")
        ->type_name("LIST");
    opt->prompts_opt = add_file_option(
        *sub, "--prompts", opt->prompts,
        "One prompt a line (- for standard input), or a .jsonl file of {\"text\": ...} or "
        "{\"ids\": [...]} objects; js and top1 are their means, max_abs their maximum");
    sub->add_option("--show", opt->show,
                    "weights (per head: js, top1, max_abs), hidden (per layer: max |h_A - h_B| / "
                    "max |h_A|), next (KL(A || B) of the next token, top-1 agreement)")
        ->type_name("LIST")
        ->capture_default_str();
    add_output_options(*sub, opt->out, true);
    sub->footer(
        "Examples:\n"
        "  attn compare --model gpt2 --against-dtype bfloat16 \"The cat sat on the mat\"\n"
        "  attn compare --model llama --against llama-Q4_K.gguf --ids 1,450,6635 --show "
        "weights,next\n"
        "  attn compare --model gpt2 --against gpt2-q4.gguf --prompts texts.txt -o js.svg\n");
    return {sub, [opt] { return run_compare(*opt); }, &opt->out};
}

}  // namespace attn::cli
