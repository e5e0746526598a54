// A subcommand's --show table, written once: each array it can print (name, shape, what it
// is, how it is made). Help text, the accepted names and the dispatch all read it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/enum_option.hpp"
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
};

template <class Item, class Run>
using ShowTable = std::vector<ShowEntry<Item, Run>>;

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

/// The entry of an item (the table must hold it).
template <class Item, class Run>
const ShowEntry<Item, Run>& show_entry(const ShowTable<Item, Run>& table, Item item) {
    for (const auto& e : table)
        if (e.item == item) return e;
    return table.front();
}

}  // namespace attn::cli
