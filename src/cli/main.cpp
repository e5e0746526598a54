// attn: self-attention and positional encoding, one command at a time.
// main parses, sets the process's limits once (threads, memory), dispatches to the subcommand
// that was named, and maps every failure to one line on stderr and one documented exit
// status (cli/errors.hpp).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli/command.hpp"
#include "cli/completion.hpp"
#include "cli/errors.hpp"
#include "cli/exit_code.hpp"
#include "cli/parse_errors.hpp"

using namespace attn::cli;

namespace {

int run(const std::vector<Command>& commands) {
    for (const Command& c : commands) {
        if (!c.app->parsed()) continue;
        configure_process(*c.output);
        const int rc = c.run();
        if (std::fflush(stdout) != 0)
            throw std::system_error(errno, std::generic_category(), "standard output");
        return rc;
    }
    return kUsage;  // unreachable: a subcommand is required
}

// The subcommand named on the command line (nullptr when none was).
const CLI::App* named_command(const std::vector<Command>& commands, int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        for (const Command& c : commands)
            if (argv[i] == c.app->get_name()) return c.app;
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Self-attention and positional encoding: matrices you can read, pipe and plot.",
                 "attn"};
    app.set_version_flag("--version", "attn " ATTN_VERSION);
    app.require_subcommand(1);
    app.footer(
        "Examples:\n"
        "  attn encode -n 60 -d 32 --columns 6:10     the book's figure, as a table\n"
        "  attn encode -n 1000 -d 128 -o P.npy         P for numpy.load\n"
        "  attn bits -n 8 -d 8                         binary digits beside column periods\n"
        "  attn encode --model openai-community/gpt2   a real model's positions (--model M:\n"
        "                                              a folder or ORG/NAME of the Hugging Face\n"
        "                                              cache; --revision R; man attn, MODELS)\n"
        "See man attn for every option, format and exit status.\n");

    const std::vector<Command> commands{add_encode(app),     add_attend(app), add_rotate(app),
                                        add_complexity(app), add_bits(app),   add_tokenize(app),
                                        add_heads(app),      add_merge(app),  add_compare(app)};
    Shell shell = Shell::bash;
    const CLI::App* completion = add_completion(app, shell);
    add_value_checks(app);

    std::vector<std::string> names;
    for (const Command& c : commands) names.push_back(c.app->get_name());
    if (argc > 1 && argv[1][0] != '-' && argv[1] != completion->get_name() &&
        std::find(names.begin(), names.end(), argv[1]) == names.end()) {
        fmt::print(stderr, "attn: {}\n{}\n",
                   escape_control(unknown_command_message(argv[1], names)), help_hint(""));
        return kUsage;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        const CLI::App* command = named_command(commands, argc, argv);
        fmt::print(stderr, "attn: {}\n{}\n", escape_control(parse_error_message(e, command)),
                   help_hint(command ? command->get_name() : ""));
        return kUsage;  // CLI11's own codes are 100+
    }
    if (completion->parsed()) {
        fmt::print("{}", completion_script(app, shell));
        return kOk;
    }
    try {
        return run(commands);
    } catch (...) {
        const CLI::App* command = named_command(commands, argc, argv);
        return report(std::current_exception(), command ? command->get_name() : "");
    }
}
