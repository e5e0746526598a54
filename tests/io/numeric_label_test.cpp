// Label columns marked numeric: exact numbers as text (64-bit counts beyond 2^53), written
// unquoted in json (null for inf/nan) and right-aligned in tables.
#include <doctest/doctest.h>

#include <string>

#include "io/csv.hpp"
#include "io/json.hpp"
#include "io/table.hpp"
#include "support/test_files.hpp"

namespace {

attn::io::ArrayInfo counts() {
    attn::io::ArrayInfo a;
    a.name = "counts";
    a.title = "exact counts";
    a.labels.push_back({"layer", [](std::size_t r) {
                            return r ? std::string("rnn") : std::string("self_attention");
                        }});
    // 2^53 + 1 has no double: it must survive as text.
    a.labels.push_back(
        {"count",
         [](std::size_t r) { return r ? std::string("7") : std::string("9007199254740993"); },
         true});
    a.labels.push_back(
        {"path", [](std::size_t r) { return r ? std::string("inf") : std::string("1.5e-05"); },
         true});
    a.shape = {2, 0};
    a.dtype = attn::io::Dtype::float64;
    return a;
}

template <class Writer, class... Args>
std::string write(const std::string& name, Args&&... args) {
    const std::string path = attn::test::tmp_path(name);
    {
        attn::io::OutputFile out(path);
        Writer w(out, std::forward<Args>(args)...);
        w.begin(counts());
        w.rows(0, nullptr, 2);
        w.end();
        w.finish();
        out.commit();
    }
    return attn::test::read_file(path);
}

}  // namespace

TEST_CASE("numeric labels: json numbers unquoted, inf as null") {
    const std::string j = write<attn::io::JsonWriter>("n.json", attn::io::TextStyle{});
    CHECK(j.find("\"count\": [9007199254740993, 7]") != std::string::npos);
    CHECK(j.find("\"path\": [1.5e-05, null]") != std::string::npos);
    CHECK(j.find("\"layer\": [\"self_attention\", \"rnn\"]") != std::string::npos);
    CHECK(j.find("\"shape\": [2, 0]") != std::string::npos);
}

TEST_CASE("numeric labels: table right-aligns them and shows no shape without values") {
    CHECK(write<attn::io::TableWriter>("n.txt", attn::io::TextStyle{}) ==
          "exact counts\n"
          "layer                      count     path\n"
          "self_attention  9007199254740993  1.5e-05\n"
          "rnn                            7      inf\n");
}

TEST_CASE("numeric labels: csv prints the text as it is") {
    CHECK(write<attn::io::CsvWriter>("n.csv", ',', attn::io::TextStyle{}) ==
          "layer,count,path\nself_attention,9007199254740993,1.5e-05\nrnn,7,inf\n");
}
