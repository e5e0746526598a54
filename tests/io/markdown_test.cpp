#include "io/markdown.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "io/format.hpp"
#include "support/test_files.hpp"

TEST_CASE("markdown: title, pipe table, numbers right-aligned, several arrays") {
    const std::string path = attn::test::tmp_path("a.md");
    {
        attn::io::OutputFile out(path);
        attn::io::MarkdownWriter w(out, {});
        attn::io::ArrayInfo a;
        a.name = "M";
        a.title = "matrix M";
        a.labels.push_back(
            {"token", [](std::size_t r) { return r ? std::string("a|b") : std::string("x*y"); }});
        a.labels.push_back({"count",
                            [](std::size_t r) { return std::to_string(18446744073709551615u - r); },
                            true});
        a.column_labels = {"0", "1"};
        a.shape = {2, 2};
        const std::vector<double> v{0.1, NAN, 1e22, 2};
        w.begin(a);
        w.rows(0, v.data(), 1);
        w.rows(1, v.data() + 2, 1);
        w.end();
        attn::io::ArrayInfo b;
        b.name = "text";
        b.labels.push_back({"layer", [](std::size_t) { return std::string("a\nb`c\\"); }});
        b.shape = {1, 0};
        w.begin(b);
        w.rows(0, nullptr, 1);
        w.end();
        w.finish();
        out.commit();
    }
    CHECK(attn::test::read_file(path) ==
          "**matrix M**\n"
          "\n"
          "| token | count | 0 | 1 |\n"
          "| --- | ---: | ---: | ---: |\n"
          "| x\\*y | 18446744073709551615 | 0.1 | nan |\n"
          "| a\\|b | 18446744073709551614 | 1e+22 | 2 |\n"
          "\n"
          "**text**\n"
          "\n"
          "| layer |\n"
          "| --- |\n"
          "| a b\\`c\\\\ |\n");
}

TEST_CASE("markdown: --precision gives significant digits; float64 keeps every digit") {
    const std::string path = attn::test::tmp_path("p.md");
    {
        attn::io::OutputFile out(path);
        attn::io::TextStyle style;
        style.precision = 3;
        attn::io::MarkdownWriter w(out, style);
        attn::io::ArrayInfo a;
        a.name = "x";
        a.column_labels = {"v"};
        a.shape = {1, 1};
        a.dtype = attn::io::Dtype::float64;
        const double v = 1.0 / 3;
        w.begin(a);
        w.rows(0, &v, 1);
        w.end();
        out.commit();
    }
    CHECK(attn::test::read_file(path) == "**x**\n\n| v |\n| ---: |\n| 0.333 |\n");
}

TEST_CASE("markdown: the md format by name and by extension") {
    CHECK(attn::io::parse_format("md") == attn::io::Format::md);
    CHECK(attn::io::format_from_extension("notes/table.md") == attn::io::Format::md);
    CHECK(attn::io::format_extension(attn::io::Format::md) == ".md");
    CHECK(attn::io::holds_several_arrays(attn::io::Format::md));
    CHECK_FALSE(attn::io::is_binary(attn::io::Format::md));
    CHECK(attn::io::format_names().find("|md") != std::string::npos);
}
