// A 1-D array of text as numpy stores it: dtype '<U{w}', each element w code points of
// UTF-32LE, the shorter ones padded with zero code points (numpy strips them on reading), w the
// longest element's length in code points (at least 1, as numpy.array(['']) has '<U1').
// Written as a whole .npy file, or as an npz member by NpzWriter::add. numpy.load reads both
// without allow_pickle.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attn::io {

/// The bytes of the .npy file of `values` (UTF-8), shape (n,): numpy 1.24's header for
/// '<U{w}', then the data. std::invalid_argument for text that is not valid UTF-8.
std::string npy_string_array(const std::vector<std::string>& values);

/// The strings of a 1-D '<U{w}' .npy file held in `npy` (what npy_string_array writes, and
/// numpy.save of a 1-D str array), as UTF-8. std::invalid_argument "<name>: <problem>" for
/// anything else (another dtype or shape, a short file, a code point outside Unicode).
std::vector<std::string> read_npy_strings(std::string_view npy, const std::string& name);

/// Whether the .npy file held in `npy` stores text ('<U' descr).
bool is_npy_strings(std::string_view npy);

/// The code points of UTF-8 text. std::invalid_argument for malformed, overlong or surrogate
/// sequences.
std::u32string utf8_code_points(const std::string& text);

}  // namespace attn::io
