// A GGUF file's tensors served under the Hugging Face names the families ask for
// (runtime::TensorStore): each name mapped to llama.cpp's tensor and how its converter stored it.
// Tensors stored as they are come as views into the mapped file (quantized blocks widened by the
// reader, a layer at a time); the others are made, on first use, into a buffer held until
// release():
//   transposed        HF (in, out) from GGUF C-order (out, in), widened to F32;
//   rope_interleaved  rows (of q, k or their bias) put back in HF's order within each head of
//                     head_dim rows: HF row h hd + j hd/2 + i is GGUF row h hd + 2i + j, the rows'
//                     bytes moved as they are (any type, no widening);
//   plus_one          w = stored - 1 (Gemma's norms, which the converter stores as w + 1), F32.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/gguf.hpp"
#include "runtime/tensor_store.hpp"

namespace attn::io {

enum class GgufStored { as_is, transposed, rope_interleaved, plus_one };

/// One Hugging Face name ("layers.0.self_attn.q_proj.weight") and where it lies.
struct GgufTensorName {
    std::string hf;
    std::string gguf;  // "blk.0.attn_q.weight"
    GgufStored stored = GgufStored::as_is;
    std::uint64_t head_dim = 0;  // rope_interleaved: rows per head
};

class GgufStore final : public runtime::TensorStore {
  public:
    GgufStore(std::shared_ptr<const GgufFile> file, const std::vector<GgufTensorName>& names);

    /// The first of names mapped to a tensor the file holds, of shape (C order, after the
    /// stored layout is undone); GgufError missing naming names[0] (and its GGUF name), shape or
    /// unsupported naming the GGUF tensor.
    runtime::TensorView tensor(std::span<const std::string> names,
                               std::span<const std::uint64_t> shape) const override;
    void release(std::span<const std::string> names) const override;
    /// The GGUF name of the first of names the file holds ("blk.0.attn_q.weight").
    std::string stored_name(std::span<const std::string> names) const override;

  private:
    struct Made {
        runtime::TensorView view;
        std::vector<std::byte> bytes;
    };
    const GgufTensorName* find(std::span<const std::string> names) const;
    runtime::TensorView make(const GgufTensorName& n, const runtime::TensorView& stored) const;

    std::shared_ptr<const GgufFile> file_;
    std::unordered_map<std::string, GgufTensorName> by_hf_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, Made> made_;  // by HF name, until release()
};

}  // namespace attn::io
