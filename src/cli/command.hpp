// A subcommand: its CLI11 app (options bound to a shared options struct) and what runs it.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>

namespace attn::cli {

struct Command {
    CLI::App* app;
    std::function<int()> run;  // called after parsing succeeded; returns an ExitCode
};

/// A bad option value found after parsing (exit 2). The message names the option.
struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

Command add_encode(CLI::App& root);
Command add_bits(CLI::App& root);
Command add_attend(CLI::App& root);
Command add_complexity(CLI::App& root);
Command add_rotate(CLI::App& root);

}  // namespace attn::cli
