#include "io/format.hpp"

#include <doctest/doctest.h>
#include "io/format_columns.hpp"

#include <string>

using attn::io::Format;

TEST_CASE("format: every name parses to its format and back") {
    const auto names = attn::io::format_name_list();
    CHECK(names.size() == 11);
    std::string joined;
    for (const std::string& name : names) {
        CAPTURE(name);
        const auto f = attn::io::parse_format(name);
        REQUIRE(f.has_value());
        CHECK(attn::io::format_name(*f) == name);
        joined += (joined.empty() ? "" : "|") + name;
    }
    CHECK(attn::io::format_names() == joined);
    CHECK(joined == "csv|tsv|table|npy|npz|json|svg|png|heatmap|md|html");
    CHECK_FALSE(attn::io::parse_format("CSV").has_value());
    CHECK_FALSE(attn::io::parse_format("").has_value());
    CHECK_FALSE(attn::io::parse_format("txt").has_value());
}

TEST_CASE("format: from the file name's extension") {
    CHECK(attn::io::format_from_extension("out/P.csv") == Format::csv);
    CHECK(attn::io::format_from_extension("P.tsv") == Format::tsv);
    CHECK(attn::io::format_from_extension("P.txt") == Format::table);  // not heatmap
    CHECK(attn::io::format_from_extension("P.npy") == Format::npy);
    CHECK(attn::io::format_from_extension("a.b/P.npz") == Format::npz);
    CHECK(attn::io::format_from_extension("P.json") == Format::json);
    CHECK(attn::io::format_from_extension("P.svg") == Format::svg);
    CHECK(attn::io::format_from_extension("P.md") == Format::md);
    CHECK_FALSE(attn::io::format_from_extension("P").has_value());
    CHECK(attn::io::format_from_extension("P.png") == Format::png);
    CHECK_FALSE(attn::io::format_from_extension("P.jpg").has_value());
    CHECK_FALSE(attn::io::format_from_extension("dir.csv/P").has_value());  // a directory's dot
    // Extensions are read in any case, as users name files.
    CHECK(attn::io::format_from_extension("P.CSV") == attn::io::Format::csv);
    CHECK(attn::io::format_from_extension("P.Npy") == attn::io::Format::npy);
}

TEST_CASE("format: the table's columns: extension, binary, several arrays, picture, numpy, page") {
    CHECK(attn::io::format_extension(Format::heatmap) == ".txt");
    CHECK(attn::io::format_extension(Format::md) == ".md");
    for (const std::string& name : attn::io::format_name_list()) {
        CAPTURE(name);
        const Format f = *attn::io::parse_format(name);
        CHECK(attn::io::is_binary(f) == (name == "npy" || name == "npz" || name == "png"));
        CHECK(attn::io::is_plain_text(f) == !(attn::io::is_binary(f) || name == "svg"));
        const bool several =
            name == "npz" || name == "json" || name == "table" || name == "heatmap" || name == "md";
        CHECK(attn::io::holds_several_arrays(f) == several);
        const attn::io::FormatColumns& is = attn::io::format_columns(f);
        CHECK(is.binary == attn::io::is_binary(f));
        CHECK(is.several == several);
        CHECK(is.picture == (name == "svg" || name == "png"));
        CHECK(is.numpy == (name == "npy" || name == "npz"));
        CHECK(is.page == (name == "html"));
        CHECK(is.aligned == (name == "table"));
    }
}
