// A subcommand: its CLI11 app (options bound to a shared options struct) and what runs it.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "cli/common_options.hpp"
#include "cli/errors.hpp"

namespace attn::cli {

struct Command {
    CLI::App* app;
    std::function<int()> run;     // called after parsing succeeded; returns an ExitCode
    const OutputOptions* output;  // its shared options (threads are set from them)
};

Command add_encode(CLI::App& root);
Command add_bits(CLI::App& root);
Command add_attend(CLI::App& root);
Command add_complexity(CLI::App& root);
Command add_rotate(CLI::App& root);
Command add_tokenize(CLI::App& root);
Command add_heads(CLI::App& root);
Command add_merge(CLI::App& root);
Command add_compare(CLI::App& root);

}  // namespace attn::cli
