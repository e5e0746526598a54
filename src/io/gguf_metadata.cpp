// GGUF's values and types: metadata getters, ggml's type table, the mapped file's views.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "io/gguf.hpp"

namespace attn::io {

namespace fs = std::filesystem;
using Kind = GgufError::Kind;
using runtime::DType;

std::string_view gguf_type_name(GgufType t) {
    static constexpr std::array<std::string_view, 13> kNames{
        "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64"};
    const auto i = static_cast<std::uint32_t>(t);
    return i < kNames.size() ? kNames[i] : "?";
}

// ---------------------------------------------------------------------------------------------
// Values

namespace {

template <class T>
T load(std::span<const std::byte> data, std::uint64_t i) {
    T v;
    std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
    return v;
}

}  // namespace

bool GgufValue::is_integer() const {
    switch (type) {
        case GgufType::u8:
        case GgufType::i8:
        case GgufType::u16:
        case GgufType::i16:
        case GgufType::u32:
        case GgufType::i32:
        case GgufType::u64:
        case GgufType::i64:
            return true;
        default:
            return false;
    }
}

bool GgufValue::is_float() const {
    return type == GgufType::f32 || type == GgufType::f64;
}

double GgufValue::number(std::uint64_t i) const {
    switch (type) {
        case GgufType::u8:
        case GgufType::boolean:
            return load<std::uint8_t>(data, i);
        case GgufType::i8:
            return load<std::int8_t>(data, i);
        case GgufType::u16:
            return load<std::uint16_t>(data, i);
        case GgufType::i16:
            return load<std::int16_t>(data, i);
        case GgufType::u32:
            return load<std::uint32_t>(data, i);
        case GgufType::i32:
            return load<std::int32_t>(data, i);
        case GgufType::f32:
            return load<float>(data, i);
        case GgufType::u64:
            return static_cast<double>(load<std::uint64_t>(data, i));
        case GgufType::i64:
            return static_cast<double>(load<std::int64_t>(data, i));
        case GgufType::f64:
            return load<double>(data, i);
        default:
            throw std::logic_error("a GGUF " + type_text() + " is not a number");
    }
}

std::int64_t GgufValue::integer(std::uint64_t i) const {
    switch (type) {
        case GgufType::u64: {
            const auto v = load<std::uint64_t>(data, i);
            if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                throw std::overflow_error(fmt::format("{} is above 2^63 - 1", v));
            return static_cast<std::int64_t>(v);
        }
        case GgufType::i64:
            return load<std::int64_t>(data, i);
        default:
            if (!is_integer())
                throw std::logic_error("a GGUF " + type_text() + " is not an integer");
            return static_cast<std::int64_t>(number(i));  // exact below 2^53
    }
}

std::string GgufValue::type_text() const {
    if (!is_array) return std::string(gguf_type_name(type));
    return fmt::format("arr[{},{}]", gguf_type_name(type), count);
}

// ---------------------------------------------------------------------------------------------
// Metadata

const GgufValue* GgufMetadata::find(std::string_view key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? nullptr : &kv_[it->second].second;
}

const GgufValue& GgufMetadata::expect(std::string_view key, bool array, std::string_view wanted,
                                      bool (*fits)(const GgufValue&)) const {
    const GgufValue& v = *find(key);
    if (v.is_array != array || !fits(v))
        throw GgufError(Kind::metadata, file_, std::string(key),
                        "is " + v.type_text() + ", not " + std::string(wanted), true);
    return v;
}

std::optional<std::string_view> GgufMetadata::string(std::string_view key) const {
    if (!find(key)) return std::nullopt;
    return expect(key, false, "str", [](const GgufValue& v) { return v.type == GgufType::string; })
        .strings.front();
}

std::optional<std::int64_t> GgufMetadata::integer(std::string_view key) const {
    if (!find(key)) return std::nullopt;
    const GgufValue& v =
        expect(key, false, "an integer", [](const GgufValue& v) { return v.is_integer(); });
    try {
        return v.integer();
    } catch (const std::overflow_error& e) {
        throw GgufError(Kind::metadata, file_, std::string(key), e.what(), true);
    }
}

std::optional<std::uint64_t> GgufMetadata::unsigned_integer(std::string_view key) const {
    if (!find(key)) return std::nullopt;
    const GgufValue& v =
        expect(key, false, "an integer", [](const GgufValue& v) { return v.is_integer(); });
    if (v.type == GgufType::u64) return load<std::uint64_t>(v.data, 0);
    const std::int64_t i = v.integer();
    if (i < 0)
        throw GgufError(Kind::metadata, file_, std::string(key), fmt::format("is {}, below 0", i),
                        true);
    return static_cast<std::uint64_t>(i);
}

std::optional<double> GgufMetadata::number(std::string_view key) const {
    if (!find(key)) return std::nullopt;
    return expect(key, false, "a number",
                  [](const GgufValue& v) { return v.is_integer() || v.is_float(); })
        .number();
}

std::optional<bool> GgufMetadata::boolean(std::string_view key) const {
    if (!find(key)) return std::nullopt;
    return expect(key, false, "bool", [](const GgufValue& v) {
               return v.type == GgufType::boolean;
           }).number() != 0;
}

std::optional<std::span<const std::string_view>> GgufMetadata::strings(std::string_view key) const {
    if (!find(key)) return std::nullopt;
    return std::span<const std::string_view>(expect(key, true, "arr[str]", [](const GgufValue& v) {
                                                 return v.type == GgufType::string;
                                             }).strings);
}

std::optional<std::vector<double>> GgufMetadata::numbers(std::string_view key) const {
    if (!find(key)) return std::nullopt;
    const GgufValue& v = expect(key, true, "an array of numbers",
                                [](const GgufValue& v) { return v.is_integer() || v.is_float(); });
    std::vector<double> out(v.count);
    for (std::uint64_t i = 0; i < v.count; ++i) out[i] = v.number(i);
    return out;
}

std::optional<std::vector<std::int64_t>> GgufMetadata::integers(std::string_view key) const {
    if (!find(key)) return std::nullopt;
    const GgufValue& v = expect(key, true, "an array of integers",
                                [](const GgufValue& v) { return v.is_integer(); });
    std::vector<std::int64_t> out(v.count);
    try {
        for (std::uint64_t i = 0; i < v.count; ++i) out[i] = v.integer(i);
    } catch (const std::overflow_error& e) {
        throw GgufError(Kind::metadata, file_, std::string(key), e.what(), true);
    }
    return out;
}

namespace {

template <class T>
T present(const std::optional<T>& v, const fs::path& file, std::string_view key) {
    if (!v) throw GgufError(Kind::missing, file, std::string(key), "is absent", true);
    return *v;
}

}  // namespace

std::string_view GgufMetadata::get_string(std::string_view key) const {
    return present(string(key), file_, key);
}
std::uint64_t GgufMetadata::get_unsigned(std::string_view key) const {
    return present(unsigned_integer(key), file_, key);
}
double GgufMetadata::get_number(std::string_view key) const {
    return present(number(key), file_, key);
}

// ---------------------------------------------------------------------------------------------
// ggml's types (ggml.c's type_traits, ggml-common.h's blocks); ids 4, 5, 31-33 and 36-38
// were removed from ggml and are refused as undefined.

std::optional<GgmlType> ggml_type(std::uint32_t id) {
    struct Row {
        std::uint32_t id;
        GgmlType type;
    };
    static const std::array<Row, 35> kTypes{{
        {0, {"F32", 1, 4, DType::F32}},           {1, {"F16", 1, 2, DType::F16}},
        {2, {"Q4_0", 32, 18, DType::Q4_0}},       {3, {"Q4_1", 32, 20, DType::Q4_1}},
        {6, {"Q5_0", 32, 22, DType::Q5_0}},       {7, {"Q5_1", 32, 24, DType::Q5_1}},
        {8, {"Q8_0", 32, 34, DType::Q8_0}},       {9, {"Q8_1", 32, 36, std::nullopt}},
        {10, {"Q2_K", 256, 84, std::nullopt}},    {11, {"Q3_K", 256, 110, std::nullopt}},
        {12, {"Q4_K", 256, 144, DType::Q4_K}},    {13, {"Q5_K", 256, 176, DType::Q5_K}},
        {14, {"Q6_K", 256, 210, DType::Q6_K}},    {15, {"Q8_K", 256, 292, std::nullopt}},
        {16, {"IQ2_XXS", 256, 66, std::nullopt}}, {17, {"IQ2_XS", 256, 74, std::nullopt}},
        {18, {"IQ3_XXS", 256, 98, std::nullopt}}, {19, {"IQ1_S", 256, 50, std::nullopt}},
        {20, {"IQ4_NL", 32, 18, std::nullopt}},   {21, {"IQ3_S", 256, 110, std::nullopt}},
        {22, {"IQ2_S", 256, 82, std::nullopt}},   {23, {"IQ4_XS", 256, 136, std::nullopt}},
        {24, {"I8", 1, 1, std::nullopt}},         {25, {"I16", 1, 2, std::nullopt}},
        {26, {"I32", 1, 4, std::nullopt}},        {27, {"I64", 1, 8, std::nullopt}},
        {28, {"F64", 1, 8, std::nullopt}},        {29, {"IQ1_M", 256, 56, std::nullopt}},
        {30, {"BF16", 1, 2, DType::BF16}},        {34, {"TQ1_0", 256, 54, std::nullopt}},
        {35, {"TQ2_0", 256, 66, std::nullopt}},   {39, {"MXFP4", 32, 17, std::nullopt}},
        {40, {"NVFP4", 64, 36, std::nullopt}},    {41, {"Q1_0", 128, 18, std::nullopt}},
        {42, {"Q2_0", 64, 18, std::nullopt}},
    }};
    for (const auto& r : kTypes)
        if (r.id == id) return r.type;
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Tensors

std::uint64_t GgufTensorInfo::elements() const {
    std::uint64_t n = 1;
    for (const auto e : ne) n *= e;  // below 2^63: checked when read
    return n;
}

std::vector<std::uint64_t> GgufTensorInfo::shape() const {
    return {ne.rbegin(), ne.rend()};
}

GgufFile::GgufFile(const fs::path& path)
    : file_(path), header_(read_gguf_header(file_.bytes(), path)) {
    for (std::size_t i = 0; i < header_.tensors.size(); ++i)
        index_.emplace(header_.tensors[i].name, i);
}

const GgufTensorInfo* GgufFile::find(std::string_view name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &header_.tensors[it->second];
}

std::span<const std::byte> GgufFile::bytes(const GgufTensorInfo& t) const {
    return file_.bytes().subspan(t.begin, t.bytes);
}

runtime::TensorView GgufFile::view(const GgufTensorInfo& t) const {
    const auto type = ggml_type(t.type);  // defined: checked when read
    if (!type->dtype)
        throw GgufError(Kind::unsupported, path(), t.name,
                        fmt::format("has type {}, which attn does not widen (it reads F32, F16, "
                                    "BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K)",
                                    type->name));
    return {*type->dtype, t.shape(), bytes(t)};
}

runtime::TensorView GgufFile::expect(std::string_view name,
                                     std::span<const std::uint64_t> shape) const {
    const GgufTensorInfo* t = find(name);
    if (t == nullptr) throw GgufError(Kind::missing, path(), std::string(name), "is absent");
    runtime::TensorView v = view(*t);
    if (!std::equal(v.shape.begin(), v.shape.end(), shape.begin(), shape.end()))
        throw GgufError(
            Kind::shape, path(), t->name,
            fmt::format("has shape [{}] (C order; ne [{}]), expected [{}]",
                        fmt::join(v.shape, ", "), fmt::join(t->ne, ", "), fmt::join(shape, ", ")));
    return v;
}

void GgufFile::release(const GgufTensorInfo& t) const {
    file_.release(t.begin, t.bytes);
}

}  // namespace attn::io
