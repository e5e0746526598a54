#include "cli/parse_errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <regex>

#include "cli/arguments.hpp"

namespace attn::cli {

namespace {

// Edits from a to b, a swap of two adjacent letters counting as one (the optimal string
// alignment distance, as git's suggestions count): d[i][j] = min(d[i-1][j] + 1,
// d[i][j-1] + 1, d[i-1][j-1] + (a_i != b_j), d[i-2][j-2] + 1 when a_i a_(i-1) = b_(j-1) b_j).
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> before(b.size() + 1), last(b.size() + 1), row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        before.swap(last);
        last.swap(row);  // last = d[i-1], before = d[i-2]
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + (a[i - 1] != b[j - 1])});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                row[j] = std::min(row[j], before[j - 2] + 1);
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

bool integer_option(const CLI::Option& o) {
    const std::string type = o.get_type_name();
    const std::string name = type.substr(0, type.find(':'));
    return name == "INT" || name == "UINT" || name == "N" || name == "I" || name == "K" ||
           name == "P";
}

void add_check(CLI::App& app) {
    for (CLI::Option* o : app.get_options()) {
        if (!o->nonpositional() || o->get_items_expected_max() == 0) continue;
        if (integer_option(*o))
            o->transform(CLI::Validator(
                [](std::string& value) -> std::string {
                    if (auto whole = whole_number_text(value)) value = *whole;
                    return {};
                },
                ""));
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

std::string unknown_option_message(std::string_view word, const CLI::App& command) {
    const std::string_view typed = word.substr(0, word.find('='));
    std::vector<std::string> names;
    const auto add = [&names](const CLI::App& app) {
        for (const CLI::Option* o : app.get_options()) {
            for (const auto& n : o->get_lnames()) names.push_back("--" + n);
            for (const auto& n : o->get_snames()) names.push_back("-" + n);
        }
    };
    add(command);
    for (const CLI::App* group :
         command.get_subcommands([](const CLI::App* a) { return a->get_name().empty(); }))
        add(*group);
    std::string best;
    std::size_t best_distance = 3;
    for (const auto& n : names) {
        const std::size_t d = edit_distance(typed, n);
        if (d < best_distance) best = n, best_distance = d;
    }
    if (best.empty() && typed.size() > 2)
        for (const auto& n : names)
            if (n.rfind(typed, 0) == 0) {
                best = n;
                break;
            }
    if (best.empty()) return fmt::format("unknown option '{}'", typed);
    return fmt::format("unknown option '{}'; did you mean '{}'?", typed, best);
}

std::string parse_error_message(const CLI::ParseError& error, const CLI::App* command) {
    const std::string text = error.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&error) && command) {
        // "The following arguments were not expected: 6:10 --colums": the first word that
        // looks like an option (not a negative number) is the misspelt one.
        for (const std::string& extra : command->remaining(true))
            if (extra.size() > 1 && extra[0] == '-' && !(extra[1] >= '0' && extra[1] <= '9'))
                return unknown_option_message(extra, *command);
        // "The following argument was not expected: def": a second word of an unquoted text
        const auto extras = command->remaining(true);
        if (!extras.empty())
            return fmt::format(
                "'{}': an argument more than {} takes; quote a text with spaces (\"a b c\")",
                extras.front(), command->get_name());
    }
    // "--top: At Most 1 required but received 2": an option given twice
    static const std::regex twice(R"(^(\S+): At Most 1 required but received (\d+)$)");
    std::smatch t;
    if (std::regex_match(text, t, twice))
        return fmt::format("{}: given {} times; give it once", t[1].str(), t[2].str());
    // "Could not convert: --position = 1.5": a value its type cannot hold
    static const std::regex convert(R"(^Could not convert: (\S+) = (.*)$)");
    if (std::regex_match(text, t, convert)) {
        const CLI::Option* o = command ? command->get_option_no_throw(t[1].str()) : nullptr;
        if (o == nullptr || !integer_option(*o))
            return fmt::format("{}: '{}' is not a value it takes (see --help)", t[1].str(),
                               t[2].str());
        if (is_integer(t[2]))
            return fmt::format("{}: {} is out of range (a 64-bit whole number)", t[1].str(),
                               t[2].str());
        return fmt::format("{}: '{}' is not a whole number", t[1].str(), t[2].str());
    }
    // CLI::Range: "--positions: Value sixty not in range 0 to 1099511627776".
    static const std::regex range(R"(^(.*): Value (.*) not in range (\S+) to (\S+)$)");
    std::smatch m;
    if (std::regex_match(text, m, range)) {
        if (m[3].str().find('.') != std::string::npos) {  // a real range: "0.500000 to 4.000000"
            const double lo = std::stod(m[3]), hi = std::stod(m[4]);
            char* end = nullptr;
            const std::string value = m[2];
            std::strtod(value.c_str(), &end);
            if (value.empty() || *end != '\0')
                return fmt::format("{}: '{}' is not a number (accepted: {} to {})", m[1].str(),
                                   value, lo, hi);
            return fmt::format("{}: {} is out of range (accepted: {} to {})", m[1].str(), value, lo,
                               hi);
        }
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

void add_value_checks(CLI::App& app) {
    add_check(app);
}

}  // namespace attn::cli
