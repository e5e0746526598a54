#include "io/csv.hpp"

#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

#include "support/test_files.hpp"

using attn::io::ArrayInfo;

namespace {

ArrayInfo tokens_info(attn::io::Dtype dtype) {
    ArrayInfo info;
    info.name = "weights";
    info.labels.push_back({"token", [](std::size_t r) {
                               const char* t[] = {"Life", "short, sweet", "say \"hi\""};
                               return std::string(t[r]);
                           }});
    info.column_labels = {"a", "b"};
    info.shape = {3, 2};
    info.dtype = dtype;
    return info;
}

std::string write_csv(const ArrayInfo& info, const std::vector<double>& values, char sep,
                      attn::io::TextStyle style = {}) {
    const std::string path = attn::test::tmp_path("w.csv");
    {
        attn::io::OutputFile out(path);
        attn::io::CsvWriter w(out, sep, style);
        w.begin(info);
        w.rows(0, values.data(), info.rows());
        w.end();
        w.finish();
        out.commit();
    }
    return attn::test::read_file(path);
}

}  // namespace

TEST_CASE("csv: header, RFC 4180 quoting, shortest round-trip values") {
    const std::vector<double> v{0.1, 1.0 / 3, -0.0, 1e-30, 100, 2.5};
    const std::string text = write_csv(tokens_info(attn::io::Dtype::float32), v, ',');
    CHECK(text ==
          "token,a,b\n"
          "Life,0.1,0.33333334\n"
          "\"short, sweet\",-0,1e-30\n"
          "\"say \"\"hi\"\"\",100,2.5\n");
}

TEST_CASE("csv: int64 values are integers, without a decimal point, whatever the precision") {
    const std::vector<double> v{0, 31, 16, 9007199254740991.0, -4, 1e15};
    attn::io::TextStyle style;
    style.precision = 3;
    CHECK(write_csv(tokens_info(attn::io::Dtype::int64), v, ',', style) ==
          "token,a,b\n"
          "Life,0,31\n"
          "\"short, sweet\",16,9007199254740991\n"
          "\"say \"\"hi\"\"\",-4,1000000000000000\n");
}

TEST_CASE("csv: float64, precision, no header, tsv escaping") {
    const std::vector<double> v{0.1, 1.0 / 3, 2, 3, 4, 5};
    CHECK(write_csv(tokens_info(attn::io::Dtype::float64), v, ',')
              .find("Life,0.1,0.3333333333333333\n") != std::string::npos);
    attn::io::TextStyle style;
    style.precision = 3;
    style.header = false;
    CHECK(write_csv(tokens_info(attn::io::Dtype::float64), v, ',', style).substr(0, 15) ==
          "Life,0.1,0.333\n");
    CHECK(attn::io::tsv_field("a\tb\nc\\") == "a\\tb\\nc\\\\");
    CHECK(attn::io::csv_field("plain") == "plain");
    CHECK(attn::io::csv_field("line\nbreak") == "\"line\nbreak\"");
}

TEST_CASE("csv: values parse back bit-exact, whatever the thread count") {
    // 2000 x 7 values spread over many binades, in float32 and float64.
    ArrayInfo info;
    info.name = "x";
    info.labels.push_back({"row", [](std::size_t r) { return std::to_string(r); }});
    info.shape = {2000, 7};
    for (int j = 0; j < 7; ++j) info.column_labels.push_back(std::to_string(j));
    std::vector<double> v(2000 * 7);
    for (std::size_t k = 0; k < v.size(); ++k)
        v[k] = std::sin(double(k) * 1.7) * std::pow(10.0, double(k % 41) - 20);
    for (auto dtype : {attn::io::Dtype::float32, attn::io::Dtype::float64})
        for (std::size_t threads : {1u, 2u, 3u}) {
            info.dtype = dtype;
            attn::io::TextStyle style;
            style.threads = threads;
            std::istringstream in(write_csv(info, v, ',', style));
            std::string line;
            std::getline(in, line);
            CHECK(line.rfind("row,0,1,", 0) == 0);
            std::size_t k = 0, mismatches = 0;
            while (std::getline(in, line)) {
                std::size_t pos = line.find(',') + 1;
                while (pos <= line.size() && pos != 0) {
                    const std::size_t next = line.find(',', pos);
                    const std::string field = line.substr(
                        pos, next == std::string::npos ? std::string::npos : next - pos);
                    if (dtype == attn::io::Dtype::float32) {
                        float f = 0;
                        std::from_chars(field.data(), field.data() + field.size(), f);
                        mismatches += f != float(v[k]);
                    } else {
                        double g = 0;
                        std::from_chars(field.data(), field.data() + field.size(), g);
                        mismatches += g != v[k];
                    }
                    ++k;
                    pos = next == std::string::npos ? 0 : next + 1;
                }
            }
            CHECK(k == v.size());
            CHECK(mismatches == 0);
        }
}

TEST_CASE("csv: a second array is refused") {
    const std::string path = attn::test::tmp_path("two.csv");
    attn::io::OutputFile out(path);
    attn::io::CsvWriter w(out, ',', {});
    auto info = tokens_info(attn::io::Dtype::float32);
    w.begin(info);
    w.end();
    CHECK_THROWS_AS(w.begin(info), std::invalid_argument);
}
