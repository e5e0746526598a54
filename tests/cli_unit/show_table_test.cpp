#include "cli/show_table.hpp"

#include <functional>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include "support/text.hpp"

namespace {

using attn::test::contains;

// A toy --show table: b needs bit 1 of the run; flag is a name, not an array (`all` leaves it
// out), as encode's error is; a asks bit 2 of the run, b bits 4 and 8.
enum class Item { a, b, flag };
using Table = attn::cli::ShowTable<Item, int>;

const Table& table() {
    static const Table t{{Item::a, "a", "(n)", "first", nullptr, 0, true, 0, 2},
                         {Item::b, "b", "(n, n)", "needs bit 1", nullptr, 1, true, 0, 4 | 8},
                         {Item::flag, "flag", "", "no array", nullptr, 0, false}};
    return t;
}

const std::vector<attn::cli::ShowNeed> kNeeds{{1, "needs the bit"}};

std::vector<Item> parse(const std::string& list, unsigned have = 0) {
    return attn::cli::parse_show_list(table(), list, have, kNeeds);
}

std::string refusal(const std::string& list, unsigned have = 0,
                    const std::function<std::string(const std::string&)>& unknown = nullptr) {
    try {
        attn::cli::parse_show_list(table(), list, have, kNeeds, unknown);
    } catch (const attn::cli::UsageError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("parse_show_list: names become items in order, without repeats") {
    using V = std::vector<Item>;
    CHECK(parse("a") == V{Item::a});
    CHECK(parse("flag,a,a,flag") == V{Item::flag, Item::a});
    CHECK(parse("b,a", 1) == V{Item::b, Item::a});
}

TEST_CASE("parse_show_list: all adds what is missing, in the table's order") {
    using V = std::vector<Item>;
    CHECK(parse("all") == V{Item::a});  // b lacks its need; flag is not in all
    CHECK(parse("all", 1) == V{Item::a, Item::b});
    CHECK(parse("b,all", 1) == V{Item::b, Item::a});
    CHECK(parse("all,flag") == V{Item::a, Item::flag});
}

TEST_CASE("parse_show_list: refuses unknown names and unmet needs, naming --show") {
    CHECK(refusal("c") == "--show: 'c' is not one of all, a, b, flag");
    CHECK(refusal("a,,a") == "--show: '' is not one of all, a, b, flag");
    CHECK(refusal("b") == "--show b: needs the bit");
    CHECK(refusal("c,b") == "--show: 'c' is not one of all, a, b, flag");  // the first one
    const auto unknown = [](const std::string& name) { return "--show: no " + name; };
    CHECK(refusal("a,zz", 0, unknown) == "--show: no zz");
    CHECK(contains(refusal("b,zz", 0, unknown), "needs the bit"));
}

TEST_CASE("show_asks: what the items shown ask of the run, together") {
    using attn::cli::show_asks;
    CHECK(show_asks(table(), {}) == 0);
    CHECK(show_asks(table(), {Item::flag}) == 0);
    CHECK(show_asks(table(), {Item::a}) == 2);
    CHECK(show_asks(table(), {Item::b, Item::a}) == (2 | 4 | 8));
}
