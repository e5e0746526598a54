// attend --dtype bfloat16|float16: what the random model's run rounds to the dtype before the
// layer computes in it (attn/attention/reduced.hpp), as `model.to(dtype)` and `x.to(dtype)` do
// in PyTorch, and the path it takes.
#pragma once

#include <optional>

#include <xtensor/xtensor.hpp>

#include "cli/attend.hpp"
#include "runtime/reduced_float.hpp"

namespace attn::cli {

/// The reduced dtype of --dtype (nullopt for float32 and float64).
std::optional<runtime::Reduced> attend_reduced(const AttendOptions& opt);

/// Every weight and bias of par rounded once to the dtype.
template <class T>
void round_parameters(Parameters<T>& par, runtime::Reduced dtype);

/// m rounded once to the dtype, in place.
template <class T>
void round_matrix(xt::xtensor<T, 2>& m, runtime::Reduced dtype);

/// --attention tiled with a reduced dtype: UsageError (the fused kernel computes in float32).
void check_reduced_path(const AttendOptions& opt);

}  // namespace attn::cli
