// attn tokenize: the ids a model's own tokenizer gives a text, one row per token
// (position,id,token), or {"ids": [...], "tokens": [...]} with -f json. Without TEXT, each
// line of standard input is a text (split on \n only; a \r stays part of the text), or with
// -z each NUL-terminated stretch.
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
#include "io/csv.hpp"
#include "io/json.hpp"
#include "io/labels.hpp"
#include "io/output_file.hpp"

namespace attn::cli {

namespace {

struct TokenizeOptions {
    ModelOptions model;               // --model, --revision (model_files.hpp)
    std::optional<std::string> text;  // nullopt: one text per line of standard input
    bool zero_terminated = false;     // texts on standard input end with NUL, not \n
    OutputOptions out;
};

// The rows of one text in the chosen format; `line`: the text's line on standard input
// (a leading "text" column), nullopt for TEXT.
std::string format_rows(io::Format format, const text::Encoding& e, std::optional<std::size_t> line,
                        bool header) {
    std::string out;
    if (format == io::Format::json) {
        out = "{\"ids\": [";
        for (std::size_t i = 0; i < e.ids.size(); ++i)
            out += (i ? ", " : "") + std::to_string(e.ids[i]);
        out += "], \"tokens\": [";
        for (std::size_t i = 0; i < e.tokens.size(); ++i)
            out += (i ? ", " : "") + io::json_string(e.tokens[i]);
        return out + "]}\n";
    }
    std::vector<std::vector<std::string>> rows;
    if (header || format == io::Format::table)
        rows.push_back(line ? std::vector<std::string>{"text", "position", "id", "token"}
                            : std::vector<std::string>{"position", "id", "token"});
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
        std::vector<std::string> row{std::to_string(i), std::to_string(e.ids[i]), e.tokens[i]};
        if (line) row.insert(row.begin(), std::to_string(*line));
        rows.push_back(std::move(row));
    }
    if (format == io::Format::table) {
        // Numbers right-aligned, tokens left-aligned, two spaces between columns.
        std::vector<std::size_t> width(rows.front().size(), 0);
        for (auto& row : rows) {
            row.back() = escape_control(row.back());
            for (std::size_t c = 0; c < row.size(); ++c)
                width[c] = std::max(width[c], io::display_width(row[c]));
        }
        if (line && *line > 0) out += "\n";
        for (const auto& row : rows) {
            for (std::size_t c = 0; c + 1 < row.size(); ++c)
                out += std::string(width[c] - io::display_width(row[c]), ' ') + row[c] + "  ";
            out += row.back() + "\n";
        }
        return out;
    }
    const char separator = format == io::Format::csv ? ',' : '\t';
    for (const auto& row : rows) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c > 0) out += separator;
            out += format == io::Format::csv ? io::csv_field(row[c]) : io::tsv_field(row[c]);
        }
        out += "\n";
    }
    return out;
}

int run_tokenize(const TokenizeOptions& opt) {
    const io::OutputSpec spec = resolve_output(opt.out);
    const io::Format format = spec.format;
    if (spec.directory || (format != io::Format::csv && format != io::Format::tsv &&
                           format != io::Format::table && format != io::Format::json))
        throw UsageError(
            fmt::format("-f: tokenize writes csv, tsv, table or json to a file or "
                        "standard output, not {}",
                        spec.directory ? "a directory" : io::format_name(format)));
    const io::ModelSource source = open_source(opt.model);
    const text::Tokenizer tokenizer =
        naming_option("--model", [&] { return load_tokenizer(source); });

    if (opt.text) {
        const text::Encoding e = naming_option("TEXT", [&] { return tokenizer.encode(*opt.text); });
        io::OutputFile file(spec.path);
        file.write(format_rows(format, e, std::nullopt, spec.style.header));
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
        file.write(format_rows(format, e, line, spec.style.header && line == 0));
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
