// The arrays of attn encode --scheme rope|alibi|t5, each a MatrixStream made from the checked
// options (encode_schemes.cpp) and the objects built from them, streamed row block by row block.
#pragma once

#include <memory>

#include "attn/positions/alibi.hpp"
#include "attn/positions/rope.hpp"
#include "attn/positions/t5.hpp"
#include "cli/encode_options.hpp"
#include "cli/show_table.hpp"
#include "io/npy.hpp"

namespace attn::cli {

namespace pos = attn::positions;

// What the producers read: the checked options and the objects made from them.
struct SchemeRun {
    const EncodeOptions* opt = nullptr;
    std::size_t n = 0, d = 0, batch = 0;  // batch 0: X (or nothing) is (n, d)
    io::Dtype dtype = io::Dtype::float32;
    std::shared_ptr<const pos::Rope> rope;
    pos::Layout layout = pos::Layout::split;
    std::shared_ptr<const io::NpyArray> x;  // --apply
    std::shared_ptr<const pos::AlibiBias> alibi;
    pos::T5Buckets t5;
};

using SchemeTable = ShowTable<EncodeArray, SchemeRun>;

/// The --show table of a scheme (empty for sinusoidal, whose P encode.cpp streams).
const SchemeTable& table_of(Scheme scheme);
const char* scheme_name(Scheme s);

}  // namespace attn::cli
