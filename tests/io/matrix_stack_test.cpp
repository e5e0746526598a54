// io::matrix_stack: a stack of matrices along at most two axes as one stream (shape, label
// fields, rows asked of the block function), and the label fields of a sentence's rows.
#include "io/matrix_stack.hpp"

#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

using attn::io::StackLabel;

TEST_CASE("position_labels: position, then token when there are tokens") {
    const std::vector<StackLabel> plain = attn::io::position_labels({});
    REQUIRE(plain.size() == 1);
    CHECK(plain[0].name == "position");
    CHECK(plain[0].value(17) == "17");
    const std::vector<StackLabel> words = attn::io::position_labels({"Life", "is"});
    REQUIRE(words.size() == 2);
    CHECK(words[1].name == "token");
    CHECK(words[1].value(1) == "is");
    CHECK(attn::io::index_label("in").value(3) == "3");
}

TEST_CASE("matrix_stack: rows of (b, h) matrices, labelled batch, head and row") {
    // entry (b, h, i, j) = 1000 b + 100 h + 10 i + j; rows 2 and 0 of each 3-row matrix
    std::vector<std::string> asked;
    const attn::io::MatrixStream s = attn::io::matrix_stack(
        "m", "a stack", 2, 3, {2, 0}, attn::io::index_labels(2),
        attn::io::position_labels({"a", "b", "c"}),
        [&asked](std::size_t b, std::size_t h, std::size_t i, std::size_t len, double* out) {
            asked.push_back(std::to_string(b) + std::to_string(h) + std::to_string(i) +
                            std::to_string(len));
            for (std::size_t r = 0; r < len; ++r)
                for (std::size_t j = 0; j < 2; ++j)
                    out[r * 2 + j] = 1000.0 * b + 100.0 * h + 10.0 * (i + r) + j;
        });
    CHECK(s.info.shape == std::vector<std::size_t>{2, 3, 2, 2});
    REQUIRE(s.info.labels.size() == 4);
    CHECK(s.info.labels[0].name == "batch");
    CHECK(s.info.labels[1].name == "head");
    CHECK(s.info.labels[3].name == "token");
    // stack row 9: batch 1, head 1, the matrix's second chosen row, 0 ("a")
    CHECK(s.info.labels[0].value(9) == "1");
    CHECK(s.info.labels[1].value(9) == "1");
    CHECK(s.info.labels[2].value(9) == "0");
    CHECK(s.info.labels[3].value(9) == "a");
    std::vector<double> out(2 * 2);
    s.produce(8, 2, out.data());
    CHECK(out == std::vector<double>{1120, 1121, 1100, 1101});
    CHECK(asked == std::vector<std::string>{"1121", "1101"});  // rows 2 and 0: one call each
}

TEST_CASE("offset_labels: the 2n-1 offsets j - i of n rows, from -(n-1) to n-1") {
    CHECK(attn::io::offset_labels(3) == std::vector<std::string>{"-2", "-1", "0", "1", "2"});
    CHECK(attn::io::offset_labels(1) == std::vector<std::string>{"0"});
}

TEST_CASE("matrix_stack: axes labelled by given numbers, numeric fields, one axis absent") {
    // layers 3 and 5 (the outer axis), no inner axis; entry (k, i, j) = 100 k + 10 i + j
    const attn::io::MatrixStream s = attn::io::matrix_stack(
        "m", "layers", attn::io::value_axis("layer", {3, 5}), {}, attn::io::every_row(2),
        attn::io::index_labels(3), {attn::io::value_label("head", {7, 9})},
        [](std::size_t k, std::size_t inner, std::size_t i, std::size_t len, double* out) {
            CHECK(inner == 0);
            for (std::size_t r = 0; r < len; ++r)
                for (std::size_t j = 0; j < 3; ++j) out[r * 3 + j] = 100.0 * k + 10.0 * (i + r) + j;
        });
    CHECK(s.info.shape == std::vector<std::size_t>{2, 2, 3});
    REQUIRE(s.info.labels.size() == 2);
    CHECK(s.info.labels[0].name == "layer");
    CHECK(s.info.labels[0].numeric);
    CHECK(s.info.labels[0].value(0) == "3");
    CHECK(s.info.labels[0].value(3) == "5");
    CHECK(s.info.labels[1].name == "head");
    CHECK(s.info.labels[1].numeric);
    CHECK(s.info.labels[1].value(3) == "9");
    std::vector<double> out(3 * 3);
    s.produce(1, 3, out.data());
    CHECK(out == std::vector<double>{10, 11, 12, 100, 101, 102, 110, 111, 112});
    const attn::io::StackAxis heads = attn::io::index_axis("head", 4);
    CHECK(heads.size == 4);
    CHECK(heads.label.value(2) == "2");
    CHECK_FALSE(heads.label.numeric);
    CHECK(attn::io::index_label("query", true).numeric);
}

TEST_CASE("converted_rows: a producer of float rows handed on as doubles") {
    // matrix (b, h) entry (i, j) = b + h / 2 + i / 4 + j / 8, float
    const attn::io::StackBlock block = attn::io::converted_rows<float>(
        [](std::size_t b, std::size_t h, std::size_t i, std::size_t len, float* buf) {
            for (std::size_t r = 0; r < len; ++r)
                for (std::size_t j = 0; j < 2; ++j)
                    buf[r * 2 + j] = float(b) + float(h) / 2 + float(i + r) / 4 + float(j) / 8;
        },
        2);
    std::vector<double> out(4);
    block(1, 1, 2, 2, out.data());
    CHECK(out == std::vector<double>{2.0, 2.125, 2.25, 2.375});
    block(0, 0, 0, 1, out.data());
    CHECK(out[0] == 0.0);
    CHECK(out[1] == 0.125);
}

namespace {

attn::io::MatrixStream panelled(attn::io::StackAxis outer, attn::io::StackAxis inner,
                                attn::io::StackPanels panels) {
    return attn::io::matrix_stack(
        "m", "panels", std::move(outer), std::move(inner), {0, 1}, attn::io::index_labels(2),
        {attn::io::index_label("query")},
        [](std::size_t, std::size_t, std::size_t, std::size_t, double*) {}, panels);
}

}  // namespace

TEST_CASE("matrix_stack panels: every axis in every title, a row of panels per outer") {
    using attn::io::PanelTitles;
    // layers 3 and 5 x heads 0 and 2: four 2-row panels, a layer per row of the grid
    const auto s = panelled(attn::io::value_axis("layer", {3, 5}),
                            attn::io::value_axis("head", {0, 2}), {PanelTitles::every_axis, true});
    CHECK(s.info.panel_rows == 2);
    CHECK(s.info.panel_columns == 2);
    CHECK(s.info.panel_titles == std::vector<std::string>{"layer 3, head 0", "layer 3, head 2",
                                                          "layer 5, head 0", "layer 5, head 2"});
    // one layer, one head: still a titled panel, and a grid left to the writer
    const auto one = panelled(attn::io::value_axis("layer", {1}), attn::io::value_axis("head", {4}),
                              {PanelTitles::every_axis, true});
    CHECK(one.info.panel_rows == 2);
    CHECK(one.info.panel_columns == 0);
    CHECK(one.info.panel_titles == std::vector<std::string>{"layer 1, head 4"});
    // none: no panels
    const auto plain = panelled(attn::io::index_axis("batch", 2), {}, {});
    CHECK(plain.info.panel_rows == 0);
    CHECK(plain.info.panel_titles.empty());
}

TEST_CASE("matrix_stack panels: only the axes of more than one matrix, by their panel names") {
    using attn::io::PanelTitles;
    const attn::io::StackPanels varying{PanelTitles::varying_axes};
    const auto noop = [](std::size_t, std::size_t, std::size_t, std::size_t, double*) {};
    const auto stack = [&](std::size_t batch, std::size_t heads) {
        return attn::io::matrix_stack("m", "panels", batch, heads, {0, 1, 2},
                                      attn::io::index_labels(3), {}, noop, varying);
    };
    CHECK(stack(2, 2).info.panel_titles ==
          std::vector<std::string>{"sequence 0, head 0", "sequence 0, head 1", "sequence 1, head 0",
                                   "sequence 1, head 1"});
    CHECK(stack(2, 2).info.panel_rows == 3);
    CHECK(stack(2, 2).info.panel_columns == 0);
    CHECK(stack(0, 3).info.panel_titles == std::vector<std::string>{"head 0", "head 1", "head 2"});
    CHECK(stack(1, 2).info.panel_titles == std::vector<std::string>{"head 0", "head 1"});
    CHECK(stack(2, 0).info.panel_titles == std::vector<std::string>{"sequence 0", "sequence 1"});
    // a single matrix is one picture
    CHECK(stack(1, 0).info.panel_rows == 0);
    CHECK(stack(0, 0).info.panel_titles.empty());
}

TEST_CASE("matrix_stack panels: masked cells by matrix, the matrix's own row and column") {
    // 2 sequences x 2 heads of rows {1, 2}: cell masked when j > i in sequence 1 only
    attn::io::StackPanels panels{attn::io::PanelTitles::varying_axes};
    panels.masked = [](std::size_t b, std::size_t, std::size_t i, std::size_t j) {
        return b == 1 && j > i;
    };
    const auto s = attn::io::matrix_stack(
        "m", "masked", 2, 2, {1, 2}, attn::io::index_labels(3), {},
        [](std::size_t, std::size_t, std::size_t, std::size_t, double*) {}, panels);
    REQUIRE(s.info.masked);
    CHECK_FALSE(s.info.masked(0, 2));  // sequence 0, head 0, row 1
    CHECK_FALSE(s.info.masked(3, 2));  // sequence 0, head 1, row 2
    CHECK(s.info.masked(4, 2));        // sequence 1, head 0, row 1: column 2 > 1
    CHECK_FALSE(s.info.masked(4, 1));
    CHECK_FALSE(s.info.masked(7, 2));  // sequence 1, head 1, row 2
    CHECK(s.info.masked(6, 2));        // sequence 1, head 1, row 1
    CHECK_FALSE(
        attn::io::matrix_stack("m", "plain", 2, 2, {1, 2}, attn::io::index_labels(3), {}, nullptr)
            .info.masked);
}
