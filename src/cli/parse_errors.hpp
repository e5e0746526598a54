// CLI11's parse errors in attn's words: an unknown subcommand with the nearest name, a
// number that is not one ("not a whole number", not "not in range"), and empty values
// refused for every option instead of being read as 0.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace attn::cli {

/// "unknown command 'ecode'; did you mean 'encode'?" (the nearest of `commands` by edit
/// distance, when it is at most 2 edits away; else the list of commands).
std::string unknown_command_message(std::string_view word,
                                    const std::vector<std::string>& commands);

/// The one line for a parse error, CLI11's text reworded where it misleads.
std::string parse_error_message(const CLI::ParseError& error);

/// Every option of `app` and its subcommands that takes a value refuses an empty one
/// ("--mask-value ''" is a usage error, not 0).
void refuse_empty_values(CLI::App& app);

}  // namespace attn::cli
