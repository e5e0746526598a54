#include "cli/completion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "cli/enum_option.hpp"

namespace attn::cli {

namespace {

struct Values {
    std::vector<std::string> words;
    bool comma_list = false;
};

std::map<const CLI::Option*, Values>& registered() {
    static std::map<const CLI::Option*, Values> values;
    return values;
}

// What an option's value completes to.
struct OptionSpec {
    std::vector<std::string> names;  // "-f", "--format"
    std::string help;
    enum class Kind { flag, words, files, other } kind = Kind::flag;
    Values values;
};

// The words of the first "{a,b,c}" in a type name such as "TEXT:{a,b,c}".
std::vector<std::string> braced_words(const std::string& type) {
    const auto open = type.find('{'), close = type.find('}', open);
    std::vector<std::string> words;
    if (open == std::string::npos || close == std::string::npos) return words;
    std::string word;
    for (std::size_t k = open + 1; k <= close; ++k) {
        if (type[k] == ',' || type[k] == '}') {
            if (!word.empty()) words.push_back(word);
            word.clear();
        } else {
            word += type[k];
        }
    }
    return words;
}

void collect(const CLI::App& app, std::vector<OptionSpec>& out) {
    for (const CLI::Option* o : app.get_options()) {
        if (!o->nonpositional()) continue;
        OptionSpec s;
        for (const auto& n : o->get_snames()) s.names.push_back("-" + n);
        for (const auto& n : o->get_lnames()) s.names.push_back("--" + n);
        // Option groups repeat their parent's help flag.
        if (std::any_of(out.begin(), out.end(),
                        [&](const OptionSpec& seen) { return seen.names == s.names; }))
            continue;
        s.help = o->get_description();
        const std::string type = o->get_type_name();
        if (o->get_items_expected_max() == 0) {
            s.kind = OptionSpec::Kind::flag;
        } else if (const auto it = registered().find(o); it != registered().end()) {
            s.kind = OptionSpec::Kind::words;
            s.values = it->second;
        } else if (auto words = braced_words(type); !words.empty()) {
            s.kind = OptionSpec::Kind::words;
            s.values.words = std::move(words);
        } else if (type.rfind("FILE", 0) == 0 || type.rfind("PATH", 0) == 0) {
            s.kind = OptionSpec::Kind::files;
        } else {
            s.kind = OptionSpec::Kind::other;
        }
        out.push_back(std::move(s));
    }
    for (const CLI::App* group :
         app.get_subcommands([](const CLI::App* a) { return a->get_name().empty(); }))
        collect(*group, out);
}

struct Tree {
    std::vector<std::pair<std::string, std::string>> commands;  // name, description
    std::map<std::string, std::vector<OptionSpec>> options;     // "" = the root's
    // A command's first positional argument, when it takes a word from a list (completion's
    // shell): its name and the words.
    std::map<std::string, std::pair<std::string, std::vector<std::string>>> positional;
};

Tree read_tree(const CLI::App& root) {
    Tree t;
    collect(root, t.options[""]);
    for (const CLI::App* sub :
         root.get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); })) {
        if (sub->get_group().empty()) continue;  // hidden
        t.commands.emplace_back(sub->get_name(), sub->get_description());
        collect(*sub, t.options[sub->get_name()]);
        for (const CLI::Option* o : sub->get_options())
            if (!o->nonpositional())
                if (auto words = braced_words(o->get_type_name()); !words.empty()) {
                    t.positional[sub->get_name()] = {o->get_name(), std::move(words)};
                    break;
                }
    }
    return t;
}

std::string join(const std::vector<std::string>& words, const char* sep = " ") {
    return fmt::format("{}", fmt::join(words, sep));
}

std::string bash_script(const Tree& t) {
    std::vector<std::string> names;
    for (const auto& [name, help] : t.commands) names.push_back(name);
    std::string values_case, options_case, positional_case;
    for (const auto& [cmd, positional] : t.positional)
        positional_case += fmt::format("    {}) COMPREPLY=($(compgen -W '{}' -- \"$cur\")) ;;\n",
                                       cmd, join(positional.second));
    for (const auto& [cmd, specs] : t.options) {
        std::vector<std::string> all;
        for (const OptionSpec& s : specs) {
            all.insert(all.end(), s.names.begin(), s.names.end());
            if (s.kind == OptionSpec::Kind::flag) continue;
            std::vector<std::string> patterns;
            for (const auto& n : s.names) patterns.push_back(cmd + ":" + n);
            std::string action;
            if (s.kind == OptionSpec::Kind::words)
                action = fmt::format("_attn_words '{}' {}", join(s.values.words),
                                     s.values.comma_list ? "list" : "one");
            else if (s.kind == OptionSpec::Kind::files)
                action = "_attn_files";
            else
                action = ":";  // a number or text nobody can guess
            values_case += fmt::format("    {})\n        {}\n        return 0 ;;\n",
                                       join(patterns, "|"), action);
        }
        options_case += fmt::format("    {}) words='{}' ;;\n", cmd.empty() ? "''" : cmd, join(all));
    }
    return fmt::format(
        R"(# bash completion for attn: subcommands, their options, and the values of options that
# take one from a list (formats, dtypes, schemes, colour maps, --show names) or a file name.
# Generated by `attn completion bash` from the option tables the parser uses.
# Installed as share/bash-completion/completions/attn.

# A comma list (--show a,b) completes without the trailing space that would end it: the user
# types ',' for one more name, or a space.
_attn_words() {{
    local prefix= word=$cur
    if [[ $2 == list ]]; then
        compopt -o nospace 2>/dev/null
        if [[ $cur == *,* ]]; then
            prefix=${{cur%,*}},
            word=${{cur##*,}}
        fi
    fi
    COMPREPLY=($(compgen -W "$1" -P "$prefix" -- "$word"))
}}

_attn_files() {{
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
}}

_attn() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev= cmd= i words
    COMPREPLY=()
    if ((COMP_CWORD > 0)); then prev=${{COMP_WORDS[COMP_CWORD - 1]}}; fi
    # --opt=value: bash splits the word at '='.
    if [[ $cur == "=" ]]; then cur=; fi
    if [[ $prev == "=" ]] && ((COMP_CWORD > 1)); then prev=${{COMP_WORDS[COMP_CWORD - 2]}}; fi
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${{COMP_WORDS[i]}} in
        {}) cmd=${{COMP_WORDS[i]}}; break ;;
        esac
    done
    case "$cmd:$prev" in
{}    esac
    if [[ -z $cmd && $cur != -* ]]; then
        COMPREPLY=($(compgen -W '{}' -- "$cur"))
        return 0
    fi
    if [[ $cur != -* ]]; then
        case $cmd in
{}        esac
        ((${{#COMPREPLY[@]}})) && return 0
    fi
    case $cmd in
{}    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    return 0
}}

complete -F _attn attn
)",
        join(names, "|"), values_case, join(names), positional_case, options_case);
}

// Text safe inside a zsh '...' spec: no quotes, brackets or colons.
std::string zsh_text(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\'' || c == '[' || c == ']' || c == ':' || c == '\\' || c == '`') continue;
        out += c;
    }
    return out;
}

std::string zsh_script(const Tree& t) {
    std::string commands, cases;
    for (const auto& [name, help] : t.commands)
        commands += fmt::format("        '{}:{}'\n", name, zsh_text(help));
    for (const auto& [cmd, specs] : t.options) {
        if (cmd.empty()) continue;
        std::string args;
        for (const OptionSpec& s : specs) {
            std::string action;
            if (s.kind == OptionSpec::Kind::words && s.values.comma_list)
                action = fmt::format(":value:_values -s , value {}", join(s.values.words));
            else if (s.kind == OptionSpec::Kind::words)
                action = fmt::format(":value:({})", join(s.values.words));
            else if (s.kind == OptionSpec::Kind::files)
                action = ":file:_files";
            else if (s.kind == OptionSpec::Kind::other)
                action = ":value: ";
            const std::string help = zsh_text(s.help);
            if (s.names.size() == 1)
                args += fmt::format("            '{}[{}]{}' \\\n", s.names[0], help, action);
            else
                args += fmt::format("            '({})'{{{}}}'[{}]{}' \\\n", join(s.names),
                                    join(s.names, ","), help, action);
        }
        if (const auto it = t.positional.find(cmd); it != t.positional.end())
            args += fmt::format("            '1:{}:({})' \\\n", it->second.first,
                                join(it->second.second));
        cases += fmt::format("    {})\n        _arguments -s \\\n{}            && return ;;\n", cmd,
                             args);
    }
    return fmt::format(R"(#compdef attn
# zsh completion for attn, generated by `attn completion zsh` from the option tables the
# parser uses. Installed as share/zsh/site-functions/_attn.

_attn() {{
    local -a commands
    commands=(
{}    )
    if ((CURRENT == 2)); then
        _describe 'command' commands
        return
    fi
    local cmd=${{words[2]}}
    shift words
    ((CURRENT--))
    case $cmd in
{}    esac
}}

_attn "$@"
)",
                       commands, cases);
}

}  // namespace

void complete_values(const CLI::Option* option, std::vector<std::string> words, bool comma_list) {
    registered()[option] = Values{std::move(words), comma_list};
}

std::string completion_script(const CLI::App& root, Shell shell) {
    const Tree tree = read_tree(root);
    return shell == Shell::zsh ? zsh_script(tree) : bash_script(tree);
}

CLI::App* add_completion(CLI::App& root, Shell& shell) {
    static const NameTable<Shell> kShells{{"bash", Shell::bash}, {"zsh", Shell::zsh}};
    CLI::App* sub = root.add_subcommand(
        "completion", "Print the completion script for bash or zsh (installed with attn)");
    add_enum_option(*sub, "shell", shell, kShells, "bash or zsh")->required();
    return sub;
}

}  // namespace attn::cli
