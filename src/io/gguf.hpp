// GGUF files (ggml's container, versions 2 and 3), read by mapping the file and trusting
// nothing in it. The specification is ggml's gguf.h / gguf.cpp and docs/gguf.md.
//
// Layout, little-endian: "GGUF", version (u32), n_tensors (i64), n_kv (i64); n_kv pairs of
// key (string), value type (i32), value (an array: element type i32, count u64, elements);
// n_tensors infos of name (string), n_dims (u32), ne[n_dims] (i64), ggml type (i32), offset
// (u64); padding to `general.alignment` (u32, default 32); the data. A string is its length
// (u64) and its bytes; a bool one byte. ne[0] is a row's length (ggml's order, the reverse of
// C order); a tensor's bytes are ne[0] / B * (block bytes) * ne[1] * ne[2] * ne[3] for its
// type's blocks of B elements, at data_offset + offset.
//
// The checks, each failing with a GgufError naming the file and the key or tensor at fault
// before anything at the place checked is read: the magic; the version (2 or 3; 1 and a
// byte-swapped file refused); the counts against the bytes left (a key/value pair takes at
// least 14 bytes, a tensor info 24); every length, count and element read inside the file;
// keys non-empty and unique, value types ggml defines (no array of arrays); the alignment a
// u32 power of two; tensor names unique and under 64 bytes, n_dims <= 4, each ne >= 0, their
// product and byte size within 63 bits; a type ggml defines, ne[0] a whole number of its
// blocks; each offset a multiple of the alignment; then, in file order (by offset), the first
// tensor that runs past the end (a truncated file), and tensors overlapping. Whether a type
// can be widened (F32 F16 BF16 Q8_0 Q4_0 Q4_1 Q5_0 Q5_1 Q4_K Q5_K Q6_K) is checked when a
// tensor's view is asked for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/mapped_file.hpp"
#include "runtime/tensor_view.hpp"

namespace attn::io {

/// A malformed or unusable GGUF file (cli: exit 2). what() is "<file>: tensor '<name>' <detail>"
/// or "<file>: key '<name>' <detail>", or "<file>: <detail>" for the file as a whole.
struct GgufError : std::invalid_argument {
    enum class Kind {
        truncated,    // the header, a key or a tensor info runs past the end of the file
        magic,        // not "GGUF"
        version,      // not 2 or 3 (1, a big-endian file, a later version)
        count,        // n_tensors or n_kv negative or more than the file can hold
        key,          // an empty or repeated key
        value_type,   // a metadata type ggml does not define, an array of arrays
        alignment,    // general.alignment not a u32 power of two
        tensor_info,  // a name empty of too long or repeated, n_dims > 4, ne < 0, too large
        type,         // a tensor type ggml does not define
        byte_size,    // ne[0] not a whole number of blocks
        offset,       // an offset not a multiple of the alignment
        past_end,     // a tensor's data runs past the end of the file
        overlap,      // two tensors' data overlap
        unsupported,  // a type attn does not widen (Q2_K, IQ4_XS, I32, ...)
        missing,      // a tensor or key asked for is absent
        shape,        // a tensor asked for has another shape
        metadata      // a key asked for has another value type
    };
    GgufError(Kind kind, std::filesystem::path file, std::string name, const std::string& detail,
              bool is_key = false);
    Kind kind;
    std::filesystem::path file;
    std::string name;  // the tensor or key at fault, empty for the file as a whole
};

/// gguf_type: the metadata value types.
enum class GgufType : std::uint32_t {
    u8 = 0,
    i8 = 1,
    u16 = 2,
    i16 = 3,
    u32 = 4,
    i32 = 5,
    f32 = 6,
    boolean = 7,
    string = 8,
    array = 9,
    u64 = 10,
    i64 = 11,
    f64 = 12
};
/// ggml's names: "u8", "i8", ..., "bool", "str", "arr", "u64", "i64", "f64".
std::string_view gguf_type_name(GgufType t);

/// One metadata value where it lies in the mapped file.
struct GgufValue {
    GgufType type = GgufType::u8;  // a scalar's type, or an array's element type
    bool is_array = false;
    std::uint64_t count = 1;                // elements (1 for a scalar)
    std::span<const std::byte> data;        // fixed-size elements: count * size bytes
    std::vector<std::string_view> strings;  // string elements, in the mapped file

    bool is_integer() const;  // u8 .. i64 (not bool)
    bool is_float() const;    // f32, f64
    /// Element i as a number: integers (u64 above 2^63 included) and floats, bool as 0/1;
    /// std::logic_error for strings.
    double number(std::uint64_t i = 0) const;
    /// Element i of an integer type as int64 (a u64 above 2^63 - 1: std::overflow_error).
    std::int64_t integer(std::uint64_t i = 0) const;
    /// "u32", "arr[str,151936]": for messages.
    std::string type_text() const;
};

/// The key/value pairs, in file order, with typed getters: an absent key gives nullopt (or
/// a GgufError missing from the get_ ones), a value of another type a GgufError metadata
/// naming the key, its type and the one expected.
class GgufMetadata {
  public:
    const GgufValue* find(std::string_view key) const;
    const std::vector<std::pair<std::string_view, GgufValue>>& entries() const { return kv_; }

    std::optional<std::string_view> string(std::string_view key) const;
    /// Any integer type holding a value in [0, 2^64).
    std::optional<std::uint64_t> unsigned_integer(std::string_view key) const;
    /// Any integer type holding a value in [-2^63, 2^63).
    std::optional<std::int64_t> integer(std::string_view key) const;
    /// f32, f64, or an integer type.
    std::optional<double> number(std::string_view key) const;
    std::optional<bool> boolean(std::string_view key) const;
    /// Arrays: of strings; of numbers (any integer or float type); of integers.
    std::optional<std::span<const std::string_view>> strings(std::string_view key) const;
    std::optional<std::vector<double>> numbers(std::string_view key) const;
    std::optional<std::vector<std::int64_t>> integers(std::string_view key) const;

    std::string_view get_string(std::string_view key) const;
    std::uint64_t get_unsigned(std::string_view key) const;
    double get_number(std::string_view key) const;

  private:
    friend struct GgufHeader;
    friend class GgufParser;
    const GgufValue& expect(std::string_view key, bool array, std::string_view wanted,
                            bool (*fits)(const GgufValue&)) const;
    std::filesystem::path file_;
    std::vector<std::pair<std::string_view, GgufValue>> kv_;
    std::unordered_map<std::string_view, std::size_t> index_;
};

/// A ggml tensor type: its name in capitals ("F32", "Q4_K"), elements and bytes of a block,
/// and the dtype attn widens it to, if any.
struct GgmlType {
    std::string_view name;
    std::uint32_t block = 0;
    std::uint32_t size = 0;
    std::optional<runtime::DType> dtype;
};
/// The type of ggml_type id, nullopt for an id ggml does not define (or has removed).
std::optional<GgmlType> ggml_type(std::uint32_t id);

struct GgufTensorInfo {
    std::string name;
    std::uint32_t type = 0;         // ggml_type id
    std::vector<std::uint64_t> ne;  // n_dims sizes, ne[0] the row's length
    std::uint64_t offset = 0;       // from the start of the data, as written
    std::uint64_t begin = 0;        // in the file: data_offset + offset
    std::uint64_t bytes = 0;
    std::uint64_t elements() const;
    /// C order (ne reversed): what a TensorView's shape is.
    std::vector<std::uint64_t> shape() const;
};

struct GgufHeader {
    std::uint32_t version = 0;
    std::uint64_t alignment = 32;
    std::uint64_t data_offset = 0;        // the first byte after the padded tensor infos
    GgufMetadata metadata;                // views into the bytes read
    std::vector<GgufTensorInfo> tensors;  // in the order of their infos
};

/// Parses and checks a whole GGUF file of `bytes` (mapped; the header keeps views into it);
/// `file` names it in errors. Allocations are checked against the memory budget first.
GgufHeader read_gguf_header(std::span<const std::byte> bytes, const std::filesystem::path& file);

/// A GGUF file mapped, its header checked.
class GgufFile {
  public:
    explicit GgufFile(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return file_.path(); }
    const GgufHeader& header() const { return header_; }
    const GgufMetadata& metadata() const { return header_.metadata; }
    const std::vector<GgufTensorInfo>& tensors() const { return header_.tensors; }
    /// The tensor called name, or nullptr.
    const GgufTensorInfo* find(std::string_view name) const;
    /// A tensor's bytes where they lie.
    std::span<const std::byte> bytes(const GgufTensorInfo& t) const;
    /// The tensor as a view (shape in C order); GgufError unsupported naming the tensor and
    /// its type when attn does not widen that type.
    runtime::TensorView view(const GgufTensorInfo& t) const;
    /// The tensor called name, of `shape` (C order), as a view: missing, shape or
    /// unsupported otherwise.
    runtime::TensorView expect(std::string_view name, std::span<const std::uint64_t> shape) const;
    /// Hands the tensor's pages back (runtime::MappedFile::release).
    void release(const GgufTensorInfo& t) const;

  private:
    runtime::MappedFile file_;
    GgufHeader header_;
    std::unordered_map<std::string_view, std::size_t> index_;
};

}  // namespace attn::io
