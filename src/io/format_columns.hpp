// What an output format is: the columns of the format table (kFormats, format.cpp) beside its
// name and extension. cli asks them instead of comparing formats.
#pragma once

#include "io/format.hpp"

namespace attn::io {

struct FormatColumns {
    bool binary;   // bytes, refused on a terminal (npy, npz, png)
    bool several;  // one output holds several arrays (npz, json, table, heatmap, md)
    bool picture;  // drawn: svg, png (the terminal's heatmap is text)
    bool numpy;    // numpy's files (npy, npz): numbers only, text arrays as numpy strings ('<U')
    bool page;     // the interactive html page: one sentence's weights, every query
    bool aligned;  // columns padded to --width for reading (table)
    bool drawn;    // values drawn as colours for the eye (svg, png, heatmap): rows labelled by text
};

/// The row of f.
const FormatColumns& format_columns(Format f);

}  // namespace attn::io
