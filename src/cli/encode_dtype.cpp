#include "cli/encode_dtype.hpp"

#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attn/positions/dtype_rounding.hpp"
#include "cli/encode_options.hpp"
#include "cli/errors.hpp"

namespace attn::cli {

std::optional<positions::AngleDtype> angle_dtype(Angles a) {
    switch (a) {
        case Angles::float32:
            return positions::AngleDtype::float32;
        case Angles::bfloat16:
            return positions::AngleDtype::bfloat16;
        case Angles::float16:
            return positions::AngleDtype::float16;
        case Angles::exact:
            break;
    }
    return std::nullopt;
}

OutputOptions encode_output(const EncodeOptions& opt) {
    OutputOptions out = opt.out;
    const io::Dtype want =
        opt.angles == Angles::bfloat16 ? io::Dtype::bfloat16 : io::Dtype::float16;
    if (opt.angles != Angles::bfloat16 && opt.angles != Angles::float16) return out;
    const bool typed = opt.out.dtype_option && opt.out.dtype_option->count() > 0;
    if (!typed) {
        out.dtype = want;
    } else if (io::reduced_format(opt.out.dtype) && opt.out.dtype != want) {
        throw UsageError(fmt::format(
            "--dtype {}: the values of --angles {} are {} values; use --dtype {}, float32 or "
            "float64 (which hold them exactly)",
            io::dtype_name(opt.out.dtype), io::dtype_name(want), io::dtype_name(want),
            io::dtype_name(want)));
    }
    return out;
}

io::MatrixStream rounded_once(io::MatrixStream s, ExactForm exact) {
    const auto format = io::reduced_format(s.info.dtype);  // int64 buckets stay as they are
    if (!format || !exact.at) return s;
    const std::size_t columns = s.info.columns();
    auto inner = std::move(s.produce);
    s.produce = [inner, exact, columns, f = *format](std::size_t first, std::size_t count,
                                                     double* out) {
        inner(first, count, out);
        positions::round_values(f, out, count * columns, exact.abs, exact.rel, [&](std::size_t k) {
            return exact.at(first + k / columns, k % columns);
        });
    };
    return s;
}

io::MatrixStream error_stream(io::MatrixStream shown, io::MatrixStream reference, ExactForm exact,
                              bool exact_double) {
    io::MatrixStream e;
    e.info = shown.info;
    e.info.name += "_error";
    e.info.title = "error of the " + shown.info.title + " (value minus the exact value)";
    e.info.dtype = io::Dtype::float64;
    e.info.value_range.reset();
    const std::size_t columns = e.info.columns();
    auto scratch = std::make_shared<std::vector<double>>();
    auto value = std::move(shown.produce), exact_rows = std::move(reference.produce);
    e.produce = [=](std::size_t first, std::size_t count, double* out) {
        const io::Dtype dtype = shown.info.dtype;
        value(first, count, out);
        for (std::size_t k = 0; k < count * columns; ++k)
            out[k] = io::round_to_dtype(dtype, out[k]);  // what the writer would have stored
        if (exact_double && exact.at) {
            for (std::size_t k = 0; k < count * columns; ++k) {
                const positions::DoubleDouble x = exact.at(first + k / columns, k % columns);
                out[k] = positions::to_double(positions::add({out[k], 0.0}, positions::negate(x)));
            }
            return;
        }
        scratch->resize(count * columns);
        exact_rows(first, count, scratch->data());
        for (std::size_t k = 0; k < count * columns; ++k) out[k] -= (*scratch)[k];
    };
    return e;
}

}  // namespace attn::cli
