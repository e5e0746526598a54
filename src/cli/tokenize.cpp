// attn tokenize: the ids a model's own tokenizer gives a text, one row per token
// (position,id,token), or {"ids": [...], "tokens": [...]} with -f json. Without TEXT, each
// line of standard input is a text (split on \n only; a \r stays part of the text), or with
// -z each NUL-terminated stretch. Each text is written as it is read, by io/token_rows.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/text/tokenizer.hpp"
#include "cli/command.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_code.hpp"
#include "cli/model_files.hpp"
#include "cli/tokenizer_files.hpp"
#include "io/format.hpp"
#include "io/output_file.hpp"
#include "io/token_rows.hpp"

namespace attn::cli {

namespace {

struct TokenizeOptions {
    ModelOptions model;               // --model, --revision (model_files.hpp)
    std::optional<std::string> text;  // nullopt: one text per line of standard input
    bool zero_terminated = false;     // texts on standard input end with NUL, not \n
    OutputOptions out;
};

int run_tokenize(const TokenizeOptions& opt) {
    const io::OutputSpec spec = resolve_output(opt.out);
    const auto format_rows = io::token_rows_writer(spec.format);
    if (spec.directory || !format_rows)
        throw UsageError(
            fmt::format("-f: tokenize writes csv, tsv, table or json to a file or "
                        "standard output, not {}",
                        spec.directory ? "a directory" : io::format_name(spec.format)));
    const io::ModelSource source = open_source(opt.model);
    const text::Tokenizer tokenizer =
        naming_option("--model", [&] { return load_tokenizer(source); });

    if (opt.text) {
        const text::Encoding e = naming_option("TEXT", [&] { return tokenizer.encode(*opt.text); });
        io::OutputFile file(spec.path);
        file.write(format_rows({e.ids, e.tokens, std::nullopt, spec.style.header, escape_control}));
        file.commit();
        return kOk;
    }
    io::OutputFile file(spec.path);
    std::string text;
    const char end = opt.zero_terminated ? '\0' : '\n';
    const bool interactive = io::is_terminal(0) && file.is_stdout();
    for (std::size_t line = 0; std::getline(std::cin, text, end); ++line) {
        const text::Encoding e = naming_option(fmt::format("standard input, text {}", line + 1),
                                               [&] { return tokenizer.encode(text); });
        file.write(
            format_rows({e.ids, e.tokens, line, spec.style.header && line == 0, escape_control}));
        if (interactive) file.flush();  // each answer as its line is typed
    }
    if (std::cin.bad()) throw InputError("standard input: read error");
    file.commit();
    return kOk;
}

}  // namespace

Command add_tokenize(CLI::App& root) {
    auto opt = std::make_shared<TokenizeOptions>();
    CLI::App* sub = root.add_subcommand(
        "tokenize",
        "The ids a model's own tokenizer gives a text (GPT-2, BERT, Llama, Mistral, Qwen2 ...)");
    add_model_options(*sub, opt->model);
    opt->model.model_opt->required();
    opt->model.revision_opt->capture_default_str();
    sub->add_option_function<std::string>(
        "text", [opt](const std::string& t) { opt->text = t; },
        "The text (absent: one text per line of standard input)");
    sub->add_flag("-z,--zero-terminated", opt->zero_terminated,
                  "Texts on standard input end with a NUL byte instead of a newline (texts "
                  "holding newlines)");
    add_output_options(*sub, opt->out);
    sub->footer(
        "Examples:\n"
        "  attn tokenize --model gpt2 \"Life is short, eat dessert first\"\n"
        "  attn tokenize --model ./bert-base-uncased -f json \"Héllo wörld\"\n"
        "  printf 'one\\ntwo\\n' | attn tokenize --model meta-llama/Meta-Llama-3-8B -f json\n"
        "Files read, in this order: tokenizer.json; vocab.json + merges.txt; vocab.txt;\n"
        "tokenizer.model. Rows: position,id,token (stdin adds a leading text column).\n");
    return {sub, [opt] { return run_tokenize(*opt); }, &opt->out};
}

}  // namespace attn::cli
