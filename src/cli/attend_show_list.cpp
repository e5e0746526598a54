// attn attend's --show list: the names of its table, "all", and what each run allows.
#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "cli/attend_show.hpp"
#include "cli/errors.hpp"

namespace attn::cli {

namespace {

constexpr std::string_view kAll = "all";  // the notebook's arrays, and what options add

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        out.push_back(
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

}  // namespace

std::string show_name_list() {
    std::string names;
    for (const auto& e : attend_show_table<float>()) names += (names.empty() ? "" : ", ") + e.name;
    return names;
}

std::vector<Show> parse_show(const std::string& list, bool from_input, bool has_out_proj,
                             bool has_scheme, bool has_permute) {
    const auto& table = attend_show_table<float>();
    const auto tokens_only = [](Show s) { return s == Show::vocabulary || s == Show::tokens; };
    const auto weight = [](Show s) {
        return s == Show::w_query || s == Show::w_key || s == Show::w_value || s == Show::w_out;
    };
    const auto in_all = [&](Show s) {  // the notebook's arrays, and what --scheme/--permute add
        if (s == Show::positions || s == Show::scaled_scores || s == Show::masked_scores)
            return has_scheme;
        return s == Show::equivariance ? has_permute : !weight(s);
    };
    std::vector<Show> show;
    for (const auto& name : split_list(list)) {
        std::vector<Show> expanded;
        const auto entry =
            std::find_if(table.begin(), table.end(), [&](const auto& e) { return e.name == name; });
        if (name == kAll) {
            for (const auto& e : table)
                if (in_all(e.item) && !(from_input && tokens_only(e.item)))
                    expanded.push_back(e.item);
        } else if (entry == table.end()) {
            throw UsageError("--show: '" + name + "' is not one of all, " + show_name_list());
        } else if (from_input && tokens_only(entry->item)) {
            throw UsageError("--show " + name + ": --input rows have positions, not tokens");
        } else if (entry->item == Show::positions && !has_scheme) {
            throw UsageError("--show positions: --scheme none adds no positions; give --scheme");
        } else if (entry->item == Show::equivariance && !has_permute) {
            throw UsageError(
                "--show equivariance: compares against a permuted input; give --permute");
        } else if (entry->item == Show::w_out && !has_out_proj) {
            throw UsageError(
                "--show w_out: there is no output projection without --out-proj or --wo");
        } else {
            expanded.push_back(entry->item);
        }
        for (Show s : expanded)
            if (std::find(show.begin(), show.end(), s) == show.end()) show.push_back(s);
    }
    return show;
}

double padding(Show item) {
    return item == Show::weights ? 0.0 : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace attn::cli
