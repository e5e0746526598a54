#include "cli/attend_dtype.hpp"

#include <fmt/format.h>

#include "cli/errors.hpp"
#include "io/dtype.hpp"

namespace attn::cli {

std::optional<runtime::Reduced> attend_reduced(const AttendOptions& opt) {
    return io::reduced_format(opt.out.dtype);
}

template <class T>
void round_matrix(xt::xtensor<T, 2>& m, runtime::Reduced dtype) {
    runtime::round_all(dtype, m.data(), m.size());
}

template <class T>
void round_parameters(Parameters<T>& par, runtime::Reduced dtype) {
    const auto round_vector = [&](std::optional<xt::xtensor<T, 1>>& b) {
        if (b) runtime::round_all(dtype, b->data(), b->size());
    };
    for (HeadWeights<T>& h : par.heads) {
        round_matrix(h.w_query, dtype);
        round_matrix(h.w_key, dtype);
        round_matrix(h.w_value, dtype);
    }
    if (par.w_out) round_matrix(*par.w_out, dtype);
    for (HeadOptions<T>& b : par.biases) {
        round_vector(b.b_query);
        round_vector(b.b_key);
        round_vector(b.b_value);
    }
    round_vector(par.b_out);
}

void check_reduced_path(const AttendOptions& opt) {
    if (attend_reduced(opt) && opt.attention == AttentionPath::tiled)
        throw UsageError(fmt::format(
            "--attention tiled: --dtype {} is computed on the direct path (every op rounded to "
            "the dtype, as PyTorch); use --attention direct or auto",
            io::dtype_name(opt.out.dtype)));
}

template void round_matrix<float>(xt::xtensor<float, 2>&, runtime::Reduced);
template void round_matrix<double>(xt::xtensor<double, 2>&, runtime::Reduced);
template void round_parameters<float>(Parameters<float>&, runtime::Reduced);
template void round_parameters<double>(Parameters<double>&, runtime::Reduced);

}  // namespace attn::cli
