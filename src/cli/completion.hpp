// Shell completion generated from the option tables the parser uses: `attn completion bash`
// and `attn completion zsh` print a script whose subcommands, options and values are read
// from the CLI::App tree (names from enum tables, FILE/PATH options complete file names), so
// the completion is written once, by the parser's own definitions.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace attn::cli {

/// Words an option's value completes to when no "{a,b}" validator lists them (e.g. a comma
/// list such as attend --show: `comma_list` completes the item after the last comma).
void complete_values(const CLI::Option* option, std::vector<std::string> words,
                     bool comma_list = false);

enum class Shell { bash, zsh };

/// The script for `shell` completing the commands of `root`.
std::string completion_script(const CLI::App& root, Shell shell);

/// Adds the hidden subcommand `completion bash|zsh` that prints the script on stdout.
CLI::App* add_completion(CLI::App& root, Shell& shell);

}  // namespace attn::cli
