#include "io/html.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/output_spec.hpp"
#include "support/text.hpp"
#include "support/throws.hpp"
#include "support/write_through.hpp"

namespace {

using attn::io::ArrayInfo;
using attn::io::OutputError;

// A [layer][head] n x n array labelled as attn attend labels it: the leading axes, then
// position and token; columns are the key tokens.
ArrayInfo weights_info(std::vector<std::size_t> shape, std::vector<std::string> axes) {
    ArrayInfo info;
    info.name = "weights";
    info.title = "attention weights";
    const std::size_t n = shape.back();
    std::size_t per = n;  // rows per step of the innermost leading axis
    for (std::size_t k = axes.size(); k-- > 0;) {
        const std::size_t size = shape[k];
        info.labels.insert(info.labels.begin(),
                           {axes[k], [per, size](std::size_t r) {
                                return std::to_string(r / per % size + 10);  // shown numbers
                            }});
        per *= size;
    }
    info.labels.push_back({"position", [](std::size_t r) { return std::to_string(r); }});
    for (std::size_t j = 0; j < n; ++j)
        info.column_labels.push_back(std::to_string(j).insert(0, 1, 't'));
    info.shape = std::move(shape);
    return info;
}

std::string page(const ArrayInfo& info, const std::vector<double>& values,
                 attn::io::TextStyle style = {}) {
    return attn::test::write_through(
        [&](attn::io::OutputFile& out) {
            return std::make_unique<attn::io::HtmlWriter>(out, style);
        },
        info, values, "p.html");
}

std::string data_of(const std::string& page) {
    const std::string open = "<script type=\"application/json\" id=\"attn-data\">";
    const auto from = page.find(open) + open.size();
    return page.substr(from, page.find("</script>", from) - from);
}

}  // namespace

TEST_CASE("html: the data is [layer][head][query][key] with the axes' labels, numbers as json") {
    // 2 layers x 2 heads of 2 x 2: value = 1000 l + 100 h + 10 i + j, scaled to 0..1
    std::vector<double> v;
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h)
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) v.push_back((1000 * l + 100 * h + 10 * i + j) / 2048.0);
    const std::string data = data_of(page(weights_info({2, 2, 2, 2}, {"layer", "head"}), v));
    CHECK(attn::test::contains(data, "\"axes\": [\"layer\", \"head\"]"));
    CHECK(attn::test::contains(data, "\"tokens\": [\"t0\", \"t1\"]"));
    CHECK(attn::test::contains(data, "\"layers\": [10, 11]"));
    CHECK(attn::test::contains(data, "\"heads\": [10, 11]"));
    CHECK(attn::test::contains(data,
                               "\"weights\": [[[[0,0.00048828125],[0.0048828125,0.0053710938]],\n"
                               "[[0.048828125,0.049316406],[0.053710938,0.05419922]]],\n"
                               "[[[0.48828125,0.48876953],[0.49316406,0.49365234]],\n"
                               "[[0.5371094,0.53759766],[0.5419922,0.54248047]]]]}"));
    CHECK_FALSE(attn::test::contains(data, "masked"));
}

TEST_CASE("html: a 2-d array is one layer of one head; a 3-d one a layer of heads") {
    ArrayInfo one = attn::test::matrix_info(2, 2, "M");
    const std::string data = data_of(page(one, {1, 0, 0.5, 0.5}));
    CHECK(attn::test::contains(data,
                               "\"layers\": [0],\n\"heads\": [0],\n"
                               "\"weights\": [[[[1,0],[0.5,0.5]]]]}"));
    const std::string heads =
        data_of(page(weights_info({3, 1, 1}, {"head"}), {1, 1, std::nan("")}));
    CHECK(attn::test::contains(heads, "\"heads\": [10, 11, 12]"));
    CHECK(attn::test::contains(heads, "\"weights\": [[[[1]],\n[[1]],\n[[null]]]]}"));
}

TEST_CASE("html: masked keys as runs per row, --precision digits, a token ends no script") {
    ArrayInfo info = weights_info({2, 3, 3}, {"head"});
    info.column_labels = {"</script>", "a<b", "\"q\""};
    info.masked = [](std::size_t r, std::size_t j) { return j > r % 3 || (r >= 3 && j == 0); };
    attn::io::TextStyle style;
    style.precision = 2;
    const std::string p = page(info, std::vector<double>(18, 1.0 / 3), style);
    const std::string data = data_of(p);
    CHECK(attn::test::contains(data,
                               "\"masked\": [[[1,3]],[[2,3]],[],[[0,3]],[[0,1],[2,3]],"
                               "[[0,1]]]}"));
    CHECK(attn::test::contains(data, "[0.33,0.33,0.33]"));
    CHECK(attn::test::contains(data, R"("tokens": ["\u003c/script>", "a\u003cb", "\"q\""])"));
    CHECK(attn::test::count(p, "</script>") == 3);  // the data's and the page's two scripts
}

TEST_CASE("html: the page's limits: 512 tokens, 2^24 weights, square matrices") {
    using attn::io::html_shape;
    const auto s = html_shape({12, 12, 128, 128});
    CHECK(s.layers == 12);
    CHECK(s.heads == 12);
    CHECK(s.n == 128);
    CHECK(html_shape({512, 512}).n == 512);
    CHECK(html_shape({64, 512, 512}).heads == 64);  // exactly 2^24 weights
    try {
        html_shape({513, 513});
        FAIL("513 tokens accepted");
    } catch (const OutputError& e) {
        CHECK(e.kind == OutputError::Kind::too_many_tokens);
        CHECK(e.arrays == 513);
    }
    try {
        html_shape({65, 512, 512});
        FAIL("2^24 + 2^18 weights accepted");
    } catch (const OutputError& e) {
        CHECK(e.kind == OutputError::Kind::too_many_weights);
        CHECK(e.arrays == 65u * 512 * 512);
        CHECK(e.path == "65 x 512 x 512");
    }
    try {  // layers x heads would overflow size_t
        html_shape({std::size_t{1} << 40, std::size_t{1} << 40, 1, 1});
        FAIL("2^80 weights accepted");
    } catch (const OutputError& e) {
        CHECK(e.kind == OutputError::Kind::too_many_weights);
    }
    CHECK(attn::test::invalid_argument_of([] {
              html_shape({4, 6});
          }) == "html: draws every query against every key (square matrices), not 4 x 6");
    CHECK(attn::test::invalid_argument_of([] { html_shape({6}); }).starts_with("html: draws"));
    CHECK(attn::test::invalid_argument_of([] {
              html_shape({1, 2, 3, 4, 4});
          }).starts_with("html:"));
    CHECK(attn::test::invalid_argument_of([] {
              html_shape({0, 0});
          }) == "html: no tokens: nothing to draw");
}

TEST_CASE("html: arrays after the first are views of its matrices and tables under the tokens") {
    // weights (1, 2, 2, 2); a view of the same shape without a [0, 1] range (drawn as row
    // fractions); a (2, 2) table with texts; then a shape that is neither
    const ArrayInfo weights = weights_info({1, 2, 2, 2}, {"layer", "head"});
    ArrayInfo view = weights;
    view.name = "norms";
    view.title = "norms <b>";
    ArrayInfo table = attn::test::matrix_info(2, 2, "top");
    table.name = "lens";
    table.labels = {{"layer", [](std::size_t r) { return std::to_string(3 * r); }}};
    table.strings = [] { return std::vector<std::string>{"a", "</script>", "c", "d"}; };
    table.dtype = attn::io::Dtype::float64;
    const std::string path = attn::test::tmp_path("extras.html");
    {
        attn::io::OutputFile out(path);
        attn::io::HtmlWriter w(out, {});
        const std::vector<double> v{0.5, 0.5, 1, 0, 0.25, 0.75, 0, 1};
        for (const ArrayInfo* info : std::vector<const ArrayInfo*>{&weights, &view}) {
            w.begin(*info);
            w.rows(0, v.data(), 4);
            w.end();
        }
        const std::vector<double> t{0.125, 0.5, 1, std::nan("")};
        w.begin(table);
        w.rows(0, t.data(), 1);
        w.rows(1, t.data() + 2, 1);
        w.end();
        ArrayInfo odd = attn::test::matrix_info(3, 3, "odd");
        CHECK(attn::test::invalid_argument_of([&] { w.begin(odd); })
                  .starts_with("html: 'M' of "
                               "shape (3 x 3)"));
        w.finish();
        out.commit();
    }
    const std::string data = data_of(attn::test::read_file(path));
    CHECK(attn::test::contains(data, "\"name\": \"weights\""));
    CHECK(attn::test::contains(data,
                               "\"weights\": [[[[0.5,0.5],[1,0]],\n[[0.25,0.75],[0,1]]]],\n"
                               "\"extras\": [{\"kind\": \"view\", \"name\": \"norms\", "
                               "\"title\": \"norms \\u003cb>\", \"scale\": \"row_sum\",\n"
                               "\"values\": [[[[0.5,0.5],[1,0]],\n[[0.25,0.75],[0,1]]]]},\n"));
    CHECK(attn::test::contains(data,
                               "{\"kind\": \"table\", \"name\": \"lens\", \"title\": \"top\", "
                               "\"axis\": \"layer\",\n\"rows\": [0, 3],\n\"texts\": "
                               "[[\"a\",\"\\u003c/script>\"],\n[\"c\",\"d\"]],\n"
                               "\"values\": [[0.125,0.5],\n[1,null]]}]}\n"));
}

TEST_CASE("html: a view of weights in [0, 1] is drawn as it is; views count toward 2^24") {
    // 2^22 weights: the page and three views hold 2^24
    const ArrayInfo weights = weights_info({16, 512, 512}, {"head"});
    ArrayInfo view = weights;
    view.value_range = std::pair{0.0, 1.0};
    const std::string path = attn::test::tmp_path("views.html");
    attn::io::OutputFile out(path);
    attn::io::HtmlWriter w(out, {});
    w.begin(weights);
    w.end();  // no rows: the brackets are not checked here
    for (int k = 0; k < 3; ++k) {
        w.begin(view);
        w.end();
    }
    try {
        w.begin(view);
        FAIL("a fourth view accepted");
    } catch (const OutputError& e) {
        CHECK(e.kind == OutputError::Kind::too_many_weights);
        CHECK(e.arrays == 5u * 16 * 512 * 512);
    }
    w.finish();
    out.commit();
    CHECK(attn::test::count(attn::test::read_file(path), "\"scale\": \"none\"") == 3);
}
