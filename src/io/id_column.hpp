// A column of integer ids, one per row (a sentence's token ids, a vocabulary's indices), as
// one MatrixStream. Binary formats (npy, npz): 1-D (n) int64, with the tokens beside it as
// numpy strings ('<U') when asked. Text formats: (n, 1), rows labelled by position and token.
#pragma once

#include <string>
#include <vector>

#include "io/matrix_stream.hpp"

namespace attn::io {

struct IdColumn {
    std::string name, title;
    std::vector<double> ids;          // (n) the column's values
    std::vector<std::string> tokens;  // (n) row labels "token", or empty for none
    bool position = true;             // text: a "position" label field before the token's
    bool numeric_position = false;    // the position label is a number (json, table alignment)
    bool strings = false;             // binary: the tokens stored beside the ids as '<U'
};

/// The column as a stream: binary (n) int64, or (n, 1) with its label fields.
MatrixStream id_column(IdColumn column, bool binary);

}  // namespace attn::io
