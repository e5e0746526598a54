// The one producer-side description of an output array: what it is (io::ArrayInfo), and how
// to make any block of its rows on demand. Every subcommand describes its arrays this way and
// drive() streams them into any ArraySink in bounded blocks.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "io/array_sink.hpp"

namespace attn::io {

/// Writes rows [first_row, first_row + n_rows) of the array into out, (n_rows, columns)
/// row-major. drive() never calls one producer concurrently with itself, but may call it on
/// a thread other than the caller's (compute_ahead).
using RowBlockProducer =
    std::function<void(std::size_t first_row, std::size_t n_rows, double* out)>;

/// One output array: its description and its rows.
struct MatrixStream {
    ArrayInfo info;
    RowBlockProducer produce;
};

/// A producer from a one-row function fill(row, out) writing columns values per row.
RowBlockProducer row_by_row(std::function<void(std::size_t row, double* out)> fill,
                            std::size_t columns);

/// One column of a table of mixed text and numbers (a report rather than a matrix).
///   text:  what text formats print (exact 64-bit counts, chosen digits); empty for a numeric
///          column: the writer formats `value` as it formats values (--precision, table's
///          notation), rounded once to `dtype`;
///   value: numeric columns only, the number binary formats store.
struct TableColumn {
    std::string name;
    bool numeric = false;
    std::function<std::string(std::size_t row)> text;
    std::function<double(std::size_t row)> value;
    Dtype dtype = Dtype::float64;
};

/// A table of `rows` rows (ArrayInfo::table). as_values (binary formats, which cannot hold
/// text): the numeric columns become the array's float64 values and text columns are left
/// out. Otherwise every column is a label field in order (numbers marked numeric, those without
/// text carrying their number) and the array has no value columns.
MatrixStream table_stream(std::string name, std::string title, std::size_t rows,
                          std::vector<TableColumn> columns, bool as_values);

/// Several arrays as one: their rows one after the other, a label field `part_label` first
/// (the part's index), then the first part's label fields. Columns are padded with `pad` to
/// the widest part; column labels are kept when every part has the same, else 0, 1, ...
/// Pictures: parts of equal shape are panels ("sentence 1, head 0"), else one panel; the
/// parts' masked cells and the padding are masked. parts must not be empty.
MatrixStream concatenate(std::vector<MatrixStream> parts, std::string part_label, double pad);

/// The arrays of several parts as the streams of one output: parts[k] holds part k's arrays, the
/// same arrays in the same order for every part. separate: every array of every part an entry,
/// part after part, named "<name>_<k>" and titled "<part_label> k: <title>"; otherwise each array
/// once, its parts concatenated (the part index as the first field, missing columns of array j
/// padded with pad[j]) and titled "<title>, every <part_label>". parts must not be empty.
std::vector<MatrixStream> join_parts(std::vector<std::vector<MatrixStream>> parts,
                                     const std::string& part_label, bool separate,
                                     const std::vector<double>& pad);

struct DriveOptions {
    /// Rows per block handed to the sink; at most block_rows x columns doubles are held
    /// (twice that with compute_ahead).
    std::size_t block_rows = 256;
    /// Make the next block on a second thread while this one is written. That thread is
    /// started here, in matrix_stream.cpp (std::async), and nowhere else in io.
    bool compute_ahead = false;
};

/// begin(info), rows in order in blocks of options.block_rows, end() for each stream in turn
/// (a text array: begin(info), end()).
/// The caller calls sink.finish() after the last array.
void drive(ArraySink& sink, const MatrixStream& stream, const DriveOptions& options = {});
void drive(ArraySink& sink, const std::vector<MatrixStream>& streams,
           const DriveOptions& options = {});

}  // namespace attn::io
