// Where a model's tensors come from, asked by name: what the families read (attn/model/weights)
// and a reader provides (io::Checkpoint for safetensors; a GGUF file would be another).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "runtime/tensor_view.hpp"

namespace attn::runtime {

class TensorStore {
  public:
    virtual ~TensorStore() = default;
    /// The first of `names` present (the accepted spellings of one tensor), checked to be of
    /// `shape` and of a dtype attn computes with; the reader's typed error naming names[0] when
    /// none is.
    virtual TensorView tensor(std::span<const std::string> names,
                              std::span<const std::uint64_t> shape) const = 0;
    /// Hands the pages of the first of `names` present back (it is not read again soon).
    virtual void release(std::span<const std::string> names) const = 0;
    /// The file's own name of the first of `names` present (a GGUF file's "blk.0.attn_q.weight"
    /// for "model.layers.0.self_attn.q_proj.weight"; a safetensors file's the spelling it
    /// holds), for messages about what the file holds; names[0] when none is.
    virtual std::string stored_name(std::span<const std::string> names) const = 0;
};

}  // namespace attn::runtime
