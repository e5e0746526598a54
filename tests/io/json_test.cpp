#include "io/json.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "support/test_files.hpp"

TEST_CASE("json: several arrays, labels, nesting by shape, null for non-finite") {
    const std::string path = attn::test::tmp_path("a.json");
    {
        attn::io::OutputFile out(path);
        attn::io::JsonWriter w(out, {});
        attn::io::ArrayInfo a;
        a.name = "weights";
        a.title = "say \"hi\"";
        a.labels.push_back(
            {"token", [](std::size_t r) { return r ? std::string("b\\c") : std::string("a"); }});
        a.column_labels = {"0", "1"};
        a.shape = {2, 2};
        const std::vector<double> v{0.1, NAN, -INFINITY, 2};
        w.begin(a);
        w.rows(0, v.data(), 2);
        w.end();
        attn::io::ArrayInfo b;
        b.name = "batch";
        b.shape = {2, 2, 1};
        b.dtype = attn::io::Dtype::float64;
        b.column_labels = {"0"};
        const std::vector<double> u{1, 2, 3, 0.1};
        w.begin(b);
        w.rows(0, u.data(), 4);
        w.end();
        w.finish();
        out.commit();
    }
    CHECK(
        attn::test::read_file(path) ==
        "{\n"
        "\"weights\": {\"title\": \"say \\\"hi\\\"\", \"dtype\": \"float32\", \"shape\": [2, 2],\n"
        " \"labels\": {\"token\": [\"a\", \"b\\\\c\"]},\n"
        " \"columns\": [\"0\", \"1\"],\n"
        " \"data\": [[0.1, null],\n"
        "  [null, 2]]},\n"
        "\"batch\": {\"title\": \"\", \"dtype\": \"float64\", \"shape\": [2, 2, 1],\n"
        " \"labels\": {},\n"
        " \"columns\": [\"0\"],\n"
        " \"data\": [[[1],\n"
        "  [2]],\n"
        "  [[3],\n"
        "  [0.1]]]}\n"
        "}\n");
    CHECK(attn::io::json_string("a\x01") == "\"a\\u0001\"");
}
