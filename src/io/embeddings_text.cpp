#include "io/embeddings_text.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <unordered_set>

#include "io/input_file.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::io {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_blank(line[i])) ++i;
        const std::size_t start = i;
        while (i < line.size() && !is_blank(line[i])) ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

std::optional<double> parse_double(std::string_view s) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<std::size_t> parse_count(std::string_view s) {
    std::size_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

bool next_line(std::istream& in, std::string& line) {
    if (!std::getline(in, line)) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
}

template <class F>
auto with_file(const std::string& path, F read) {
    InputFile input(path, false);
    // Text numbers take about as many bytes as the doubles they become.
    if (input.size()) runtime::reserve(*input.size(), input.name() + ": the vectors it holds");
    return read(input.stream(), path == "-" ? std::string("<stdin>") : path);
}

}  // namespace

runtime::WordVectors read_word_vectors(std::istream& in, const std::string& name) {
    runtime::WordVectors wv;
    std::optional<std::size_t> header_count, header_dim;
    std::string line;
    std::size_t line_no = 0;
    while (next_line(in, line)) {
        ++line_no;
        const auto f = fields(line);
        if (f.empty()) continue;
        if (wv.words.empty() && !header_count && f.size() == 2) {
            const auto count = parse_count(f[0]), dim = parse_count(f[1]);
            if (count && dim) {
                if (*dim == 0)
                    throw std::invalid_argument(
                        fmt::format("{}:{}: the header says dimension 0", name, line_no));
                header_count = count;
                header_dim = dim;
                continue;
            }
        }
        const std::size_t dim = f.size() - 1;
        if (dim == 0)
            throw std::invalid_argument(
                fmt::format("{}:{}: '{}' has no values", name, line_no, f[0]));
        if (wv.words.empty() && wv.dim == 0) {
            wv.dim = dim;
            if (header_dim && *header_dim != dim)
                throw std::invalid_argument(
                    fmt::format("{}:{}: {} values, but the header line says dimension {}", name,
                                line_no, dim, *header_dim));
        } else if (dim != wv.dim) {
            throw std::invalid_argument(
                fmt::format("{}:{}: {} values, expected {} as on the first vector", name, line_no,
                            dim, wv.dim));
        }
        wv.words.emplace_back(f[0]);
        for (std::size_t k = 1; k < f.size(); ++k) {
            const auto v = parse_double(f[k]);
            if (!v)
                throw std::invalid_argument(
                    fmt::format("{}:{}: value {} of '{}' is not a finite number: '{}'", name,
                                line_no, k, f[0], f[k]));
            wv.values.push_back(*v);
        }
    }
    if (in.bad()) throw std::system_error(errno, std::generic_category(), name);
    if (wv.words.empty()) throw std::invalid_argument(fmt::format("{}: no word vectors", name));
    if (header_count && *header_count != wv.words.size())
        throw std::invalid_argument(
            fmt::format("{}: the header line says {} vectors, the file has {}", name, *header_count,
                        wv.words.size()));
    wv.index();
    return wv;
}

runtime::WordVectors read_word_vectors(const std::string& path) {
    return with_file(path, [](std::istream& in, const std::string& name) {
        return read_word_vectors(in, name);
    });
}

std::vector<std::string> read_word_list(std::istream& in, const std::string& name) {
    std::vector<std::string> words;
    std::unordered_set<std::string> seen;
    std::string line;
    std::size_t line_no = 0, blank_line = 0;
    while (next_line(in, line)) {
        ++line_no;
        const auto f = fields(line);
        if (f.empty()) {
            if (!blank_line) blank_line = line_no;
            continue;
        }
        if (blank_line)
            throw std::invalid_argument(
                fmt::format("{}:{}: empty line in the word list", name, blank_line));
        if (f.size() != 1)
            throw std::invalid_argument(fmt::format(
                "{}:{}: {} fields; a word list has one word per line", name, line_no, f.size()));
        if (!seen.emplace(f[0]).second)
            throw std::invalid_argument(
                fmt::format("{}:{}: '{}' is listed twice", name, line_no, f[0]));
        words.emplace_back(f[0]);
    }
    if (in.bad()) throw std::system_error(errno, std::generic_category(), name);
    if (words.empty()) throw std::invalid_argument(fmt::format("{}: no words", name));
    return words;
}

std::vector<std::string> read_word_list(const std::string& path) {
    return with_file(
        path, [](std::istream& in, const std::string& name) { return read_word_list(in, name); });
}

}  // namespace attn::io
