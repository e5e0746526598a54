// The arrays of attn encode --scheme rope|alibi|t5, each a MatrixStream made from the checked
// options (encode_schemes.cpp) and the objects built from them, streamed row block by row block.
#pragma once

#include <memory>
#include <optional>

#include "attn/positions/alibi.hpp"
#include "attn/positions/dtype_rounding.hpp"
#include "attn/positions/rope.hpp"
#include "attn/positions/t5.hpp"
#include "cli/encode_dtype.hpp"
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
    std::optional<pos::AngleDtype> angles;  // --angles float32|bfloat16|float16: in that dtype
    std::shared_ptr<const pos::Rope> rope;
    pos::Layout layout = pos::Layout::split;
    std::shared_ptr<const io::NpyArray> x;  // --apply
    std::shared_ptr<const pos::AlibiBias> alibi;
    pos::T5Buckets t5;
};

using SchemeTable = ShowTable<EncodeArray, SchemeRun>;

/// ShowEntry::needs of the scheme tables: the array needs --apply X.npy.
constexpr unsigned kNeedsApply = 1;

/// The --show table of a scheme. Sinusoidal's P has no producer here: encode.cpp streams it.
const SchemeTable& table_of(Scheme scheme);
/// The array a scheme prints when --show names none (rope: rotated with --apply).
EncodeArray default_array(Scheme scheme, bool apply);
const char* scheme_name(Scheme s);

/// The exact form of an array of run (for rounding once and --show error); at is empty for
/// the integer buckets.
ExactForm exact_form(EncodeArray item, const SchemeRun& run);

}  // namespace attn::cli
