// Where a forward first holds a NaN or an infinity. attn never turns one into a number (the
// softmax rows it reaches are NaN, as PyTorch's); this says where it came from: the first
// block whose attention output (n, H hd) or residual stream (n, d) holds one, its head and
// position (row-major order, so the first position, then the first head), and the first tensor
// of that block (or of the embeddings, before block 0) that holds one, when one does.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "attn/model/tensors.hpp"
#include "attn/model/weights.hpp"

namespace attn::model {

struct NonFinite {
    std::optional<std::size_t> layer;    // nullopt: outside the blocks, `part`
    std::string part = "the embedding";  // without a layer: "the embedding", "the LM head"
    std::optional<std::size_t> head;     // nullopt: outside attention (the MLP, a norm)
    std::size_t position = 0;
    std::string tensor;  // the first of the block's tensors holding one; empty when none does

    /// "layer 1, head 2, position 3 (h.1.attn.c_attn.weight holds a non-finite value)".
    std::string describe() const;
};

/// The first (row, column) of a (rows, cols) row-major matrix that is NaN or infinite.
template <class T>
std::optional<std::pair<std::size_t, std::size_t>> first_nonfinite(const T* data, std::size_t rows,
                                                                   std::size_t cols);

/// The first tensor of c's block `layer` (nullopt: outside the blocks) in model_tensors order
/// that holds a NaN or an infinity, by the name its file gives it (source.stored_name: a GGUF
/// file's own name); empty when none does.
std::string nonfinite_tensor(const ModelConfig& c, const TensorSource& source,
                             std::optional<std::size_t> layer);

}  // namespace attn::model
