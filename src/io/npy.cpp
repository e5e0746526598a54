#include "io/npy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "io/npy_format.hpp"
#include "io/npy_strings.hpp"
#include "io/output_spec.hpp"
#include "runtime/shape_tuple.hpp"

namespace attn::io {

using namespace npy_detail;

namespace {

// The integer nearest v, saturated to int64's range; 0 for nan.
std::int64_t to_int64(double v) {
    if (!(v == v)) return 0;
    if (v >= 9223372036854775807.0) return std::numeric_limits<std::int64_t>::max();
    if (v <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(std::nearbyint(v));
}

}  // namespace

std::string npy_header(Dtype dtype, const std::vector<std::size_t>& shape) {
    // numpy 1.24 _write_array_header: keys sorted, repr() values, then spare spaces so the
    // first axis can grow to 21 digits in place; _wrap_header then pads with spaces and a
    // final '\n' to a multiple of 64 (a full 64 when already aligned).
    std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   numpy_descr(dtype), runtime::shape_tuple(shape));
    if (!shape.empty()) {
        const std::size_t digits = fmt::formatted_size("{}", shape[0]);
        if (digits < kGrowthDigits) dict.append(kGrowthDigits - digits, ' ');
    }
    const std::size_t hlen = dict.size() + 1;
    std::size_t preamble = kPreambleV1;
    std::size_t padded = hlen + kAlign - (preamble + hlen) % kAlign;
    if (padded > 0xFFFFu) {
        preamble = kPreambleV2;
        padded = hlen + kAlign - (preamble + hlen) % kAlign;
        if (padded > 0xFFFFFFFFu)
            throw std::invalid_argument(fmt::format(
                "npy: shape with {} dimensions is too long for a header", shape.size()));
    }
    std::string out(kMagic);
    out.push_back(preamble == kPreambleV1 ? '\x01' : '\x02');
    out.push_back('\x00');
    for (std::size_t b = 0; b < preamble - 8; ++b)
        out.push_back(static_cast<char>((padded >> (8 * b)) & 0xFFu));
    out += dict;
    out.append(padded - hlen, ' ');
    out.push_back('\n');
    return out;
}

// ---- writing -------------------------------------------------------------------------

NpyEncoder::NpyEncoder(const ArrayInfo& info)
    : name_(info.name), dtype_(info.dtype), columns_(info.columns()) {
    const std::vector<std::size_t> outer(
        info.shape.begin(), info.shape.empty() ? info.shape.end() : info.shape.end() - 1);
    std::uint64_t count = 0;
    if (!checked_product(info.shape, count) ||
        !checked_product({item_size(dtype_)}, data_size_, count) || !checked_product(outer, rows_))
        throw std::invalid_argument(fmt::format("npy: array '{}' of shape {} is too large", name_,
                                                runtime::shape_tuple(info.shape)));
    if (info.strings) {  // the whole file now; the rows that follow are not stored
        const std::vector<std::string> text = info.strings();
        if (info.shape.size() != 1 || info.shape[0] != text.size())
            throw std::invalid_argument(
                fmt::format("npy: text array '{}' of shape {} holds {} strings", name_,
                            runtime::shape_tuple(info.shape), text.size()));
        header_ = npy_string_array(text);
        data_size_ = 0;
        text_ = true;
        return;
    }
    header_ = npy_header(dtype_, info.shape);
}

void NpyEncoder::encode(std::size_t first_row, const double* values, std::size_t n_rows,
                        const Sink& sink) {
    if (first_row != next_row_ || n_rows > rows_ - next_row_)
        throw std::logic_error(fmt::format(
            "npy: array '{}': rows {}..{} arrive out of order or beyond its {} rows (next is {})",
            name_, first_row, first_row + n_rows, rows_, next_row_));
    next_row_ += n_rows;
    if (text_) return;
    std::size_t left = n_rows * columns_;
    const std::size_t item = item_size(dtype_);
    std::array<char, kChunkBytes> buffer;
    while (left > 0) {
        const std::size_t n = std::min(left, buffer.size() / item);
        if (dtype_ == Dtype::float16) {  // IEEE binary16, rounded once from the double
            for (std::size_t k = 0; k < n; ++k) {
                const std::uint16_t bits =
                    runtime::float16_bits(runtime::round_to(runtime::Reduced::float16, values[k]));
                buffer[2 * k] = static_cast<char>(bits & 0xFFu);
                buffer[2 * k + 1] = static_cast<char>(bits >> 8);
            }
        } else if (dtype_ == Dtype::bfloat16) {  // "<f4" holding the bfloat16 value exactly
            for (std::size_t k = 0; k < n; ++k)
                store_le<float, std::uint32_t>(
                    buffer.data() + 4 * k,
                    static_cast<float>(runtime::round_to(runtime::Reduced::bfloat16, values[k])));
        } else if (dtype_ == Dtype::float32) {
            for (std::size_t k = 0; k < n; ++k)
                store_le<float, std::uint32_t>(buffer.data() + 4 * k,
                                               static_cast<float>(values[k]));
        } else if (dtype_ == Dtype::int64) {  // exact for |v| < 2^53; nan and inf become 0
            for (std::size_t k = 0; k < n; ++k)
                store_le<std::int64_t, std::uint64_t>(buffer.data() + 8 * k, to_int64(values[k]));
        } else {
            for (std::size_t k = 0; k < n; ++k)
                store_le<double, std::uint64_t>(buffer.data() + 8 * k, values[k]);
        }
        sink(buffer.data(), n * item);
        values += n;
        left -= n;
    }
}

void NpyEncoder::check_complete() const {
    if (next_row_ != rows_)
        throw std::logic_error(
            fmt::format("npy: array '{}' ended after {} of its {} rows", name_, next_row_, rows_));
}

void NpyWriter::begin(const ArrayInfo& info) {
    if (encoder_) throw OutputError(OutputError::Kind::one_array_only, "", Format::npy, 0);
    encoder_.emplace(info);
    out_.write(encoder_->header());
}

void NpyWriter::rows(std::size_t first_row, const double* values, std::size_t n_rows) {
    if (!encoder_ || ended_) throw std::logic_error("npy: rows() outside begin()/end()");
    encoder_->encode(first_row, values, n_rows,
                     [this](const char* data, std::size_t size) { out_.write(data, size); });
}

void NpyWriter::end() {
    if (!encoder_ || ended_) throw std::logic_error("npy: end() without begin()");
    encoder_->check_complete();
    ended_ = true;
}

void NpyWriter::finish() {
    if (!ended_) throw std::logic_error("npy: finish() before one whole array was written");
}

}  // namespace attn::io
