#include "io/json.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "support/python.hpp"
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

TEST_CASE("json: invalid UTF-8 becomes U+FFFD, control characters are escaped") {
    using attn::io::json_string;
    CHECK(json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") ==
          "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");  // é € 😀 kept
    CHECK(json_string("a\xff") == "\"a\\ufffd\"");
    CHECK(json_string("\xc3") == "\"\\ufffd\"");                                     // cut short
    CHECK(json_string("\xc0\xaf") == "\"\\ufffd\\ufffd\"");                          // overlong '/'
    CHECK(json_string("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");               // a surrogate
    CHECK(json_string("\xf4\x90\x80\x80x") == "\"\\ufffd\\ufffd\\ufffd\\ufffdx\"");  // > U+10FFFF
    CHECK(json_string("\x7f\x1b[31m\xc2\x85") == "\"\\u007f\\u001b[31m\\u0085\"");
}

TEST_CASE("json: labels with invalid UTF-8 still give a file that python's json reads") {
    attn::test::require_numpy();
    const std::string path = attn::test::tmp_path("labels.json");
    {
        attn::io::OutputFile out(path);
        attn::io::JsonWriter w(out, {});
        attn::io::ArrayInfo a;
        a.name = std::string("t\xfe");
        a.title = std::string("bad \xe2\x82 title\x01");
        a.labels.push_back({"token", [](std::size_t r) {
                                return r ? std::string("\xff\xfe\n") : std::string("ok\xc3");
                            }});
        a.column_labels = {std::string("c\x80")};
        a.shape = {2, 1};
        const std::vector<double> v{1, 2};
        w.begin(a);
        w.rows(0, v.data(), 2);
        w.end();
        w.finish();
        out.commit();
    }
    CHECK(attn::test::run_python("labels.py", R"(import json
j = json.load(open('labels.json', encoding='utf-8'))
a = j['t\ufffd']
assert a['title'] == 'bad \ufffd\ufffd title\x01', a['title']
assert a['labels']['token'] == ['ok\ufffd', '\ufffd\ufffd\n'], a['labels']
assert a['columns'] == ['c\ufffd'] and a['data'] == [[1], [2]]
)") == 0);
}
