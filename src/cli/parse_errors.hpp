// CLI11's parse errors in attn's words: an unknown subcommand with the nearest name, a
// misspelt option with the nearest option of its command, a number that is not one ("not a
// whole number", not "not in range"), empty values refused for every option instead of being
// read as 0, and integers written with an exponent ("-n 1e6") accepted by every integer option.
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

/// "unknown option '--colums'; did you mean '--columns'?": the nearest option of `command`
/// (its option groups included) when at most 2 edits away or when `word` begins it; else
/// "unknown option '--x'". `word` may carry "=VALUE", which is not compared.
std::string unknown_option_message(std::string_view word, const CLI::App& command);

/// The one line for a parse error, CLI11's text reworded where it misleads. `command` is the
/// subcommand named on the command line (nullptr: none), whose options a misspelt one is
/// compared with.
std::string parse_error_message(const CLI::ParseError& error, const CLI::App* command);

/// Checks every option of `app` and its subcommands gets before its value is converted:
/// an empty value is refused ("--mask-value ''" is a usage error, not 0), and an integer
/// option's value is rewritten by whole_number_text (cli/arguments.hpp) so that "1e6" is
/// 1000000. Integer options are those CLI11 types INT or UINT, and those attn names N or I.
void add_value_checks(CLI::App& app);

}  // namespace attn::cli
