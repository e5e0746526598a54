// Safetensors checkpoints, read by mapping the files and trusting nothing in them.
//
// A file is: N (8 bytes, little-endian), N bytes of JSON {"name": {"dtype": "F32", "shape":
// [a, b], "data_offsets": [begin, end]}, ..., "__metadata__": {...}}, then the data; offsets
// count from the first byte after the header. A folder holds model.safetensors, or the shards
// model.safetensors.index.json names in its "weight_map" {tensor: file}.
//
// The checks, in this order, each failing with a CheckpointError naming the file and the
// tensor at fault: the file holds 8 bytes; N is at most 100,000,000 and within the file; the
// header is a JSON object, each entry with a known dtype, a shape of unsigned integers and two
// data_offsets begin <= end; each tensor's range lies inside the data and overlaps no other
// (a gap between tensors is not an error); its byte size is the product of its shape times its
// dtype's size. Whether a tensor's dtype can be computed with (F32, F16, BF16) and whether the
// tensors a model needs are present with the right shapes are checked when they are asked for.
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
#include "runtime/tensor_store.hpp"

namespace attn::io {

/// A malformed or unusable checkpoint (cli: exit 2). what() is "<file>: <tensor> <detail>",
/// one line; `tensor` is empty for faults of the file as a whole.
struct CheckpointError : std::invalid_argument {
    enum class Kind {
        truncated,    // shorter than the 8-byte size
        header_size,  // N past the end or above the limit
        header_json,  // not JSON, not an object, an entry without dtype/shape/data_offsets
        dtype,        // a dtype safetensors does not define
        offsets,      // a range outside the data, or begin > end
        overlap,      // a range overlapping another tensor's
        byte_size,    // end - begin != product(shape) * dtype size
        unsupported,  // a dtype attn does not compute with (F64, I8, ...)
        missing,      // a tensor the model needs is absent
        shape,        // a tensor the model needs has another shape
        pickle,       // only pickled .bin weights
        no_weights,   // no safetensors file at all
        index         // model.safetensors.index.json malformed or naming a missing shard
    };
    CheckpointError(Kind kind, std::filesystem::path file, std::string tensor,
                    const std::string& detail);
    Kind kind;
    std::filesystem::path file;
    std::string tensor;
};

/// Bytes of one element of a dtype safetensors defines (F64 F32 F16 BF16 I64 I32 I16 I8 U8
/// BOOL, and the U/F8 types), nullopt for any other name.
std::optional<std::size_t> safetensors_dtype_size(std::string_view name);

/// One tensor as the header describes it, checked against the file's size.
struct TensorInfo {
    std::string name;
    std::string dtype;                 // as written: "F32", "BF16", "I64", ...
    std::vector<std::uint64_t> shape;  // empty: a scalar
    std::uint64_t begin = 0, end = 0;  // byte offsets in the file (header included)
};

struct SafetensorsHeader {
    std::vector<TensorInfo> tensors;                        // in the order of their data
    std::unordered_map<std::string, std::string> metadata;  // "__metadata__" string values
    std::uint64_t data_start = 0;                           // 8 + N
};

/// Parses and checks the header of a safetensors file of `bytes` (the whole file, mapped);
/// `file` names it in errors. Allocates about 16 N bytes, N checked against the memory budget.
SafetensorsHeader read_safetensors_header(std::span<const std::byte> bytes,
                                          const std::filesystem::path& file);

/// A tensor of an open checkpoint: its header entry and the file it lies in.
struct CheckpointTensor {
    TensorInfo info;
    std::size_t file = 0;  // index into Checkpoint::files()
};

/// The weights of one model: its safetensors files mapped, every header checked; the
/// families read them as a runtime::TensorStore (tensor() is expect()).
class Checkpoint final : public runtime::TensorStore {
  public:
    /// model.safetensors in folder, else the shards of model.safetensors.index.json. Only
    /// pickled weights (pytorch_model.bin, *.bin): CheckpointError pickle; nothing: no_weights.
    static Checkpoint open_folder(const std::filesystem::path& folder);
    /// One .safetensors file.
    static Checkpoint open_file(const std::filesystem::path& file);

    /// Every tensor of every file, sorted by name.
    const std::vector<CheckpointTensor>& tensors() const { return tensors_; }
    const std::vector<runtime::MappedFile>& files() const { return files_; }
    /// The tensor called name, or nullptr.
    const CheckpointTensor* find(std::string_view name) const;
    /// The first of `names` present (the accepted spellings of one weight), checked: F32, F16
    /// or BF16 (else unsupported), of `shape` (else shape). None present: missing, naming
    /// names[0].
    runtime::TensorView expect(std::span<const std::string> names,
                               std::span<const std::uint64_t> shape) const;
    /// The view of a tensor found by find(); unsupported when its dtype is not F32/F16/BF16.
    runtime::TensorView view(const CheckpointTensor& t) const;
    /// Hands the tensor's pages back (runtime::MappedFile::release) once it is not needed.
    void release(const CheckpointTensor& t) const;
    /// runtime::TensorStore: expect(names, shape), and the release of the first name present.
    runtime::TensorView tensor(std::span<const std::string> names,
                               std::span<const std::uint64_t> shape) const override {
        return expect(names, shape);
    }
    void release(std::span<const std::string> names) const override;
    std::string stored_name(std::span<const std::string> names) const override;
    /// The file a tensor lies in.
    const std::filesystem::path& path_of(const CheckpointTensor& t) const;
    /// The first file's path (for messages about the checkpoint as a whole).
    const std::filesystem::path& first_path() const { return files_.front().path(); }

  private:
    void add_file(const std::filesystem::path& path,
                  const std::unordered_map<std::string, std::string>* only);
    std::vector<runtime::MappedFile> files_;
    std::vector<CheckpointTensor> tensors_;
};

}  // namespace attn::io
