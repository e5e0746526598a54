// A checkpoint's tensors as the family code reads them: by their handles in the family's
// table (tensors.hpp), as T values (rounded once to the config's
// compute_dtype when it has one, as model.to(dtype)). A float32 tensor computed in float is
// read where it lies in the mapped file (no copy); F16/BF16 tensors, and every tensor when T is
// double, are widened exactly into buffers that belong to the layer being computed and are
// freed, with the layer's mapped pages, by end_layer(). Embedding tables and tied LM heads are
// never widened whole: rows() widens the rows asked for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attn/model/config.hpp"
#include "attn/model/tensors.hpp"
#include "runtime/tensor_view.hpp"

namespace attn::model {

template <class T>
class Weights {
  public:
    /// The tensors of table (declared by the family; it may grow until the first read), read
    /// from source; both must outlive this object. Values rounded to dtype when given.
    Weights(const TensorTable& table, const TensorSource& source,
            std::optional<runtime::Reduced> dtype);

    /// The tensor as numel() contiguous values of T. Valid until end_layer() of its layer (for
    /// tensors outside the blocks: while this lives).
    const T* get(Tensor t);
    /// get(t), or nullptr for a tensor the config does not have.
    const T* get_optional(Tensor t) { return t ? get(t) : nullptr; }
    /// The tensor's view as stored (shape, dtype), for row access without widening all of it.
    runtime::TensorView view(Tensor t) const;
    /// Rows [row0, row0 + count) of a 2-D tensor (cols values each) into out, widened.
    void rows(Tensor t, std::size_t row0, std::size_t count, T* out) const;

    /// Frees what get() widened for block `layer` and hands its mapped pages back.
    void end_layer(std::size_t layer);

  private:
    const TensorTable& table_;
    const TensorSource& source_;
    std::optional<runtime::Reduced> dtype_;  // config's compute_dtype: values rounded to it
    std::unordered_map<std::size_t, std::vector<T>> held_;  // widened copies, by spec
};

}  // namespace attn::model
