// A subcommand's --show table, written once: each array it can print (name, shape, what it
// is, how it is made, what it needs of the run, whether `all` holds it, what it asks the run
// to make or keep). Help text, the accepted names, the --show list, the dispatch and what the
// run makes all read it.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/arguments.hpp"
#include "cli/enum_option.hpp"
#include "cli/errors.hpp"
#include "io/matrix_stream.hpp"

namespace attn::cli {

/// Item: the subcommand's enum of arrays. Run: what the producer needs (results, sizes).
template <class Item, class Run>
struct ShowEntry {
    Item item;
    std::string name;   // what --show accepts
    std::string shape;  // e.g. "(n, d)"
    std::string help;   // one line
    std::function<io::MatrixStream(const Run&)> stream;
    /// What the array needs of the run, bits of the subcommand's needs (ShowNeed): naming it
    /// when the run lacks one is refused; `all` leaves it out.
    unsigned needs = 0;
    /// Whether `all` holds it, and then only when the run has these bits too (arrays that are
    /// shown anyway but say something only with, e.g., a position scheme).
    bool in_all = true;
    unsigned all_needs = 0;
    /// What the run must make or keep for it, bits of the subcommand's own (attend: ask::).
    unsigned asks = 0;
};

/// One need of the --show table, and why an array needing it cannot be shown without it.
struct ShowNeed {
    unsigned bit;
    std::string reason;  // "--input rows have positions, not tokens"
};

template <class Item, class Run>
using ShowTable = std::vector<ShowEntry<Item, Run>>;

/// The value table names `name` exactly (a word within a value's grammar, as --permute's
/// "reverse"), nullopt if none.
template <class E>
std::optional<E> lookup_name(const NameTable<E>& table, std::string_view name) {
    for (const auto& [n, value] : table)
        if (n == name) return value;
    return std::nullopt;
}

/// The words of a --show list besides the arrays' names.
enum class ShowWord { all };
inline const NameTable<ShowWord> kShowWords{{"all", ShowWord::all}};

/// The accepted names, plus extra ones (e.g. {"all", Item::all}).
template <class Item, class Run>
NameTable<Item> show_names(const ShowTable<Item, Run>& table, NameTable<Item> extra = {}) {
    NameTable<Item> names;
    for (const auto& e : table) names.emplace_back(e.name, e.item);
    names.insert(names.end(), extra.begin(), extra.end());
    return names;
}

/// "  name (shape): help" per entry, for the subcommand's footer.
template <class Item, class Run>
std::string show_help(const ShowTable<Item, Run>& table) {
    std::string text = "Arrays (--show):\n";
    for (const auto& e : table) text += "  " + e.name + " " + e.shape + ": " + e.help + "\n";
    return text;
}

/// A --show list ("all", "scores,weights", ...) as items in order, without repeats, for a run
/// that has the needs `have`. UsageError naming --show for a name not in the table ("is not one
/// of all, ...", or unknown(name) when given) and for an array whose need the run lacks
/// ("--show w_out: <reason>").
template <class Item, class Run>
std::vector<Item> parse_show_list(
    const ShowTable<Item, Run>& table, std::string_view list, unsigned have,
    const std::vector<ShowNeed>& needs,
    const std::function<std::string(const std::string& name)>& unknown = nullptr) {
    const auto met = [have](unsigned bits) { return (bits & ~have) == 0; };
    std::vector<Item> show;
    const auto add = [&show](Item item) {
        if (std::find(show.begin(), show.end(), item) == show.end()) show.push_back(item);
    };
    for (const std::string& name : split_list(list)) {
        if (lookup_name(kShowWords, name)) {
            for (const auto& e : table)
                if (e.in_all && met(e.needs | e.all_needs)) add(e.item);
            continue;
        }
        const auto e =
            std::find_if(table.begin(), table.end(), [&](const auto& e) { return e.name == name; });
        if (e == table.end()) {
            if (unknown) throw UsageError(unknown(name));
            std::string names;
            for (const auto& t : table) names += ", " + t.name;
            throw UsageError("--show: '" + name + "' is not one of all" + names);
        }
        for (const ShowNeed& n : needs)
            if ((e->needs & n.bit) && !(have & n.bit))
                throw UsageError("--show " + name + ": " + n.reason);
        add(e->item);
    }
    return show;
}

/// The asks of the items shown, together.
template <class Item, class Run>
unsigned show_asks(const ShowTable<Item, Run>& table, const std::vector<Item>& show) {
    unsigned asks = 0;
    for (const auto& e : table)
        if (std::find(show.begin(), show.end(), e.item) != show.end()) asks |= e.asks;
    return asks;
}

/// The entry of an item (the table must hold it).
template <class Item, class Run>
const ShowEntry<Item, Run>& show_entry(const ShowTable<Item, Run>& table, Item item) {
    for (const auto& e : table)
        if (e.item == item) return e;
    return table.front();
}

}  // namespace attn::cli
