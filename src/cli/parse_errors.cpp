#include "cli/parse_errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <regex>

namespace attn::cli {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = up;
        }
    }
    return row[b.size()];
}

bool is_integer(const std::string& text) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    return !text.empty() && ptr == end &&
           (ec == std::errc() || ec == std::errc::result_out_of_range);
}

void add_check(CLI::App& app) {
    for (CLI::Option* o : app.get_options()) {
        if (!o->nonpositional() || o->get_items_expected_max() == 0) continue;
        o->check(CLI::Validator(
            [](std::string& value) -> std::string {
                return value.empty() ? "an empty value; give one (see --help)" : "";
            },
            ""));
    }
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) add_check(*sub);
}

}  // namespace

std::string unknown_command_message(std::string_view word,
                                    const std::vector<std::string>& commands) {
    std::string best;
    std::size_t best_distance = 3;
    for (const auto& c : commands) {
        const std::size_t d = edit_distance(word, c);
        if (d < best_distance) best = c, best_distance = d;
    }
    if (!best.empty()) return fmt::format("unknown command '{}'; did you mean '{}'?", word, best);
    return fmt::format("unknown command '{}'; the commands are {}", word,
                       fmt::join(commands, ", "));
}

std::string parse_error_message(const CLI::ParseError& error) {
    const std::string text = error.what();
    // CLI::Range: "--positions: Value sixty not in range 0 to 1099511627776".
    static const std::regex range(R"(^(.*): Value (.*) not in range (\S+) to (\S+)$)");
    std::smatch m;
    if (std::regex_match(text, m, range)) {
        if (!is_integer(m[2]))
            return fmt::format("{}: '{}' is not a whole number (accepted: {} to {})", m[1].str(),
                               m[2].str(), m[3].str(), m[4].str());
        return fmt::format("{}: {} is out of range (accepted: {} to {})", m[1].str(), m[2].str(),
                           m[3].str(), m[4].str());
    }
    if (dynamic_cast<const CLI::RequiredError*>(&error) &&
        text.find("subcommand is required") != std::string::npos)
        return "no command given; the commands are encode, attend, rotate, complexity, bits, "
               "tokenize";
    return text;
}

void refuse_empty_values(CLI::App& app) {
    add_check(app);
}

}  // namespace attn::cli
