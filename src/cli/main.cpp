// attn: self-attention and positional encoding, one command at a time.
// main parses, sets the thread limits once, dispatches to the subcommand that was named, and
// maps every failure to one line on stderr and one documented exit status (cli/errors.hpp).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <system_error>
#include <vector>

#include "cli/command.hpp"
#include "cli/errors.hpp"
#include "cli/exit_code.hpp"

using namespace attn::cli;

namespace {

int run(const std::vector<Command>& commands) {
    for (const Command& c : commands) {
        if (!c.app->parsed()) continue;
        configure_threads(*c.output);
        const int rc = c.run();
        if (std::fflush(stdout) != 0)
            throw std::system_error(errno, std::generic_category(), "standard output");
        return rc;
    }
    return kUsage;  // unreachable: a subcommand is required
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Self-attention and positional encoding: matrices you can read, pipe and plot.",
                 "attn"};
    app.set_version_flag("--version", "attn " ATTN_VERSION);
    app.require_subcommand(1);
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return fmt::format("attn: {}\nTry 'attn --help' for more information.\n", e.what());
    });
    app.footer(
        "Examples:\n"
        "  attn encode -n 60 -d 32 --columns 6:10     the book's figure, as a table\n"
        "  attn encode -n 1000 -d 128 -o P.npy         P for numpy.load\n"
        "  attn bits -n 8 -d 8                         binary digits beside column periods\n"
        "See man attn for every option, format and exit status.\n");

    const std::vector<Command> commands{add_encode(app), add_attend(app), add_rotate(app),
                                        add_complexity(app), add_bits(app)};

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kOk : kUsage;  // CLI11's own codes are 100+
    }
    try {
        return run(commands);
    } catch (...) {
        return report(std::current_exception());
    }
}
