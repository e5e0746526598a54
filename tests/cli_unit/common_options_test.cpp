// cli::check_conflicts: a subcommand's rows of options that exclude each other, checked after
// parsing, the message naming the option, its reason and the first excluded one given.
#include "cli/common_options.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "cli/errors.hpp"

namespace {

// The UsageError check_conflicts throws for `args` on a toy subcommand ("" for none).
std::string refusal(std::vector<std::string> args) {
    CLI::App app("toy");
    std::string sentence, file;
    bool flag = false;
    int heads = 1;
    app.add_option("sentence", sentence);
    app.add_option("--input", file);
    app.add_option("--heads", heads);
    app.add_flag("--flag", flag);
    std::reverse(args.begin(), args.end());
    app.parse(args);
    try {
        attn::cli::check_conflicts(
            app, {{"--input", {"sentence", "--heads", "--flag"}, "rows given; not with {}"},
                  {"--flag", {"--heads"}, "no {} here, file {}"}});
    } catch (const attn::cli::UsageError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("check_conflicts: the first row and the first excluded option given") {
    CHECK(refusal({"--input", "x.npy"}) == "");
    CHECK(refusal({"a b", "--heads", "2"}) == "");
    CHECK(refusal({"--input", "x.npy", "a b"}) == "--input: rows given; not with a sentence");
    CHECK(refusal({"--input", "x.npy", "--flag", "--heads", "1"}) ==
          "--input: rows given; not with --heads");
    CHECK(refusal({"--flag", "--heads", "3"}) == "--flag: no --heads here, file {}");
}

TEST_CASE("check_conflicts: a flag set to false is not given") {
    CHECK(refusal({"--input", "x.npy", "--flag=false"}) == "");
    CHECK(refusal({"--flag=false", "--heads", "2"}) == "");
    CHECK(refusal({"--input", "x.npy", "--flag", "--flag"}) ==
          "--input: rows given; not with --flag");
}
