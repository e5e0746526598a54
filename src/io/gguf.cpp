#include "io/gguf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_set>

#include "runtime/memory_budget.hpp"

namespace attn::io {

namespace fs = std::filesystem;
using Kind = GgufError::Kind;

namespace {

std::string describe(const fs::path& file, const std::string& name, bool is_key,
                     const std::string& detail) {
    std::string s = file.string() + ": ";
    if (!name.empty()) s += (is_key ? "key '" : "tensor '") + name + "' ";
    return s + detail;
}

// ggml's limits: GGML_MAX_DIMS, GGML_MAX_NAME (names are at most 63 bytes).
constexpr std::uint32_t kMaxDims = 4;
constexpr std::uint64_t kMaxName = 63;
// The least bytes a key/value pair (8-byte length, a 1-byte key, type, a u8) and a tensor
// info (8-byte length, an empty name, n_dims, type, offset) take.
constexpr std::uint64_t kMinPair = 8 + 1 + 4 + 1;
constexpr std::uint64_t kMinInfo = 8 + 4 + 4 + 8;

std::size_t scalar_size(GgufType t) {
    switch (t) {
        case GgufType::u8:
        case GgufType::i8:
        case GgufType::boolean:
            return 1;
        case GgufType::u16:
        case GgufType::i16:
            return 2;
        case GgufType::u32:
        case GgufType::i32:
        case GgufType::f32:
            return 4;
        case GgufType::u64:
        case GgufType::i64:
        case GgufType::f64:
            return 8;
        default:
            return 0;  // string, array
    }
}

}  // namespace

GgufError::GgufError(Kind k, fs::path f, std::string n, const std::string& detail, bool is_key)
    : std::invalid_argument(describe(f, n, is_key, detail)),
      kind(k),
      file(std::move(f)),
      name(std::move(n)) {}

// The bytes of the file read front to back; every read checked against what is left. `where`
// says what is being read ("key 3", "tensor 'x'"), for a truncated file's message.
class GgufParser {
  public:
    GgufParser(std::span<const std::byte> bytes, const fs::path& file)
        : bytes_(bytes), file_(file) {}

    GgufHeader parse();

  private:
    [[noreturn]] void fail(Kind kind, const std::string& detail) const {
        throw GgufError(kind, file_, name_, detail, is_key_);
    }
    std::uint64_t left() const { return bytes_.size() - pos_; }
    void need(std::uint64_t n, std::string_view what) const {
        if (n <= left()) return;
        const auto where = fmt::format("{} at byte {} needs {} bytes, but the file ends after {}",
                                       what, pos_, n, bytes_.size());
        fail(Kind::truncated, name_.empty() ? where + ": truncated or not a GGUF file"
                                            : "is cut short: " + where + " (truncated)");
    }
    template <class T>
    T read(std::string_view what) {
        need(sizeof(T), what);
        T v;
        std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }
    std::string_view read_string(std::string_view what) {
        const auto n = read<std::uint64_t>(what);
        need(n, what);
        const std::string_view s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
        pos_ += n;
        return s;
    }
    void at(std::string name, bool is_key) {
        name_ = std::move(name);
        is_key_ = is_key;
    }
    GgufType read_type(std::string_view what) {
        const auto t = read<std::int32_t>(what);
        if (t < 0 || t > 12)
            fail(Kind::value_type, fmt::format("has value type {}, which GGUF does not define", t));
        return static_cast<GgufType>(t);
    }
    GgufValue read_value();
    void read_pairs(std::int64_t n_kv, GgufMetadata& metadata);
    GgufTensorInfo read_info(std::int64_t i, std::uint64_t alignment);
    void check_data(GgufHeader& h);

    std::span<const std::byte> bytes_;
    const fs::path& file_;
    std::uint64_t pos_ = 0;
    std::string name_;  // the key or tensor being read
    bool is_key_ = false;
};

GgufValue GgufParser::read_value() {
    GgufValue v;
    v.type = read_type("the value type");
    if (v.type == GgufType::array) {
        v.is_array = true;
        v.type = read_type("the array's element type");
        if (v.type == GgufType::array) fail(Kind::value_type, "is an array of arrays");
        v.count = read<std::uint64_t>("the array's length");
    }
    if (v.type == GgufType::string) {
        // Each string takes at least its 8-byte length.
        if (v.count > left() / 8)
            fail(Kind::truncated,
                 fmt::format("holds {} strings, more than the {} bytes left can hold: truncated",
                             v.count, left()));
        runtime::reserve(v.count * sizeof(std::string_view),
                         "the strings of key '" + name_ + "' in " + file_.string());
        v.strings.reserve(v.count);
        for (std::uint64_t i = 0; i < v.count; ++i)
            v.strings.push_back(read_string(v.is_array ? "an element" : "the string"));
        return v;
    }
    const std::size_t size = scalar_size(v.type);
    if (v.count > left() / size)
        fail(Kind::truncated,
             fmt::format("holds {} values of {} bytes, more than the {} bytes left: truncated",
                         v.count, size, left()));
    v.data = bytes_.subspan(pos_, v.count * size);
    pos_ += v.count * size;
    return v;
}

void GgufParser::read_pairs(std::int64_t n_kv, GgufMetadata& m) {
    runtime::reserve(static_cast<std::uint64_t>(n_kv) * 96, "the metadata of " + file_.string());
    m.kv_.reserve(static_cast<std::size_t>(n_kv));
    for (std::int64_t i = 0; i < n_kv; ++i) {
        at("", false);
        const std::string what = fmt::format("key {}", i);
        const std::string_view key = read_string(what);
        at(std::string(key), true);
        if (key.empty()) {
            at("", false);
            fail(Kind::key, fmt::format("key {} is empty", i));
        }
        const GgufValue v = read_value();
        if (!m.index_.emplace(key, m.kv_.size()).second) fail(Kind::key, "appears twice");
        m.kv_.emplace_back(key, v);
    }
}

GgufTensorInfo GgufParser::read_info(std::int64_t i, std::uint64_t alignment) {
    at("", false);
    GgufTensorInfo t;
    const std::string_view name = read_string(fmt::format("the name of tensor {}", i));
    at(std::string(name), false);
    if (name.size() > kMaxName)
        fail(Kind::tensor_info,
             fmt::format("has a name of {} bytes, above ggml's {}", name.size(), kMaxName));
    t.name = name;
    const auto n_dims = read<std::uint32_t>("n_dims");
    if (n_dims > kMaxDims)
        fail(Kind::tensor_info,
             fmt::format("has {} dimensions, above ggml's {}", n_dims, kMaxDims));
    for (std::uint32_t d = 0; d < n_dims; ++d) {
        const auto ne = read<std::int64_t>("ne");
        if (ne < 0) fail(Kind::tensor_info, fmt::format("has ne[{}] = {} < 0", d, ne));
        t.ne.push_back(static_cast<std::uint64_t>(ne));
    }
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    // The element count, refused above 2^63 - 1 (a zero anywhere makes it 0).
    std::uint64_t n = 1;
    const bool empty = std::find(t.ne.begin(), t.ne.end(), 0) != t.ne.end();
    for (const auto ne : t.ne) {
        if (!empty && n > kMax / ne)
            fail(Kind::tensor_info,
                 fmt::format("has ne [{}], more than 2^63 - 1 elements", fmt::join(t.ne, ", ")));
        n = empty ? 0 : n * ne;
    }
    const auto id = read<std::int32_t>("the type");
    const auto type = id < 0 ? std::nullopt : ggml_type(static_cast<std::uint32_t>(id));
    if (!type) fail(Kind::type, fmt::format("has type {}, which ggml does not define", id));
    t.type = static_cast<std::uint32_t>(id);
    const std::uint64_t row = t.ne.empty() ? 1 : t.ne[0];
    if (row % type->block != 0)
        fail(Kind::byte_size, fmt::format("has rows of {} elements, not a whole number of {}'s "
                                          "blocks of {}",
                                          row, type->name, type->block));
    const std::uint64_t blocks = n / type->block;
    if (blocks > kMax / type->size)
        fail(Kind::byte_size, fmt::format("has ne [{}] of {}: more than 2^63 - 1 bytes",
                                          fmt::join(t.ne, ", "), type->name));
    t.bytes = blocks * type->size;
    t.offset = read<std::uint64_t>("the offset");
    if (t.offset % alignment != 0)
        fail(Kind::offset,
             fmt::format("has offset {}, not a multiple of the alignment {}", t.offset, alignment));
    return t;
}

void GgufParser::check_data(GgufHeader& h) {
    at("", false);
    const std::uint64_t size = bytes_.size();
    std::vector<const GgufTensorInfo*> order;
    order.reserve(h.tensors.size());
    for (auto& t : h.tensors) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return a->offset != b->offset ? a->offset < b->offset : a->bytes < b->bytes;
    });
    for (const auto* t : order) {
        const std::uint64_t room = size - h.data_offset;  // data_offset <= size: checked
        if (t->offset > room || t->bytes > room - t->offset) {
            at(t->name, false);
            fail(Kind::past_end,
                 fmt::format("has {} bytes at offset {} of the data, which starts at byte {}: "
                             "past the end of the file ({} bytes), truncated or a wrong offset",
                             t->bytes, t->offset, h.data_offset, size));
        }
    }
    // Sorted by offset: a range overlaps an earlier one iff it starts before the furthest end.
    const GgufTensorInfo* furthest = nullptr;
    for (const auto* t : order) {
        if (furthest != nullptr && t->bytes > 0 && t->offset < furthest->offset + furthest->bytes) {
            at(t->name, false);
            fail(Kind::overlap,
                 fmt::format("has data [{}, {}) overlapping tensor '{}' [{}, {}) (offsets in the "
                             "data)",
                             t->offset, t->offset + t->bytes, furthest->name, furthest->offset,
                             furthest->offset + furthest->bytes));
        }
        if (furthest == nullptr || t->offset + t->bytes > furthest->offset + furthest->bytes)
            furthest = t;
    }
    for (auto& t : h.tensors) t.begin = h.data_offset + t.offset;
}

GgufHeader GgufParser::parse() {
    GgufHeader h;
    h.metadata.file_ = file_;
    if (bytes_.size() < 4 || std::memcmp(bytes_.data(), "GGUF", 4) != 0)
        fail(Kind::magic, bytes_.size() < 4
                              ? fmt::format("is {} bytes, too short for a GGUF file", bytes_.size())
                              : "does not start with \"GGUF\": not a GGUF file");
    pos_ = 4;
    h.version = read<std::uint32_t>("the version");
    if ((h.version & 0xFFFFu) == 0 && h.version != 0)
        fail(Kind::version,
             fmt::format("has version {:#x}: a big-endian GGUF file, not read", h.version));
    if (h.version != 2 && h.version != 3)
        fail(Kind::version,
             fmt::format("has GGUF version {}; versions 2 and 3 are read", h.version));
    const auto n_tensors = read<std::int64_t>("the tensor count");
    const auto n_kv = read<std::int64_t>("the key/value count");
    if (n_tensors < 0 || n_kv < 0 || static_cast<std::uint64_t>(n_kv) > left() / kMinPair ||
        static_cast<std::uint64_t>(n_tensors) > left() / kMinInfo ||
        static_cast<std::uint64_t>(n_kv) * kMinPair >
            left() - static_cast<std::uint64_t>(n_tensors) * kMinInfo)
        fail(Kind::count,
             fmt::format("declares {} tensors and {} key/value pairs, more than its {} bytes "
                         "can hold",
                         n_tensors, n_kv, bytes_.size()));
    read_pairs(n_kv, h.metadata);

    if (const GgufValue* a = h.metadata.find("general.alignment")) {
        at("general.alignment", true);
        if (a->is_array || a->type != GgufType::u32)
            fail(Kind::alignment, "is " + a->type_text() + ", not u32");
        const auto v = static_cast<std::uint64_t>(a->integer());
        if (v == 0 || (v & (v - 1)) != 0)
            fail(Kind::alignment, fmt::format("is {}, not a power of 2", v));
        h.alignment = v;
    }

    runtime::reserve(static_cast<std::uint64_t>(n_tensors) * (sizeof(GgufTensorInfo) + 96),
                     "the tensor infos of " + file_.string());
    h.tensors.reserve(static_cast<std::size_t>(n_tensors));
    std::unordered_set<std::string> names;
    for (std::int64_t i = 0; i < n_tensors; ++i) {
        h.tensors.push_back(read_info(i, h.alignment));
        if (!names.insert(h.tensors.back().name).second) fail(Kind::tensor_info, "is named twice");
    }
    // The data starts at the next multiple of the alignment (pos_ <= size < 2^63).
    h.data_offset = (pos_ + h.alignment - 1) / h.alignment * h.alignment;
    if (h.data_offset > bytes_.size()) {
        if (!h.tensors.empty()) {
            at(h.tensors.front().name, false);
            fail(Kind::past_end,
                 fmt::format("lies past the end of the file ({} bytes): the data would start "
                             "at byte {}; truncated",
                             bytes_.size(), h.data_offset));
        }
        h.data_offset = bytes_.size();
    }
    check_data(h);
    return h;
}

GgufHeader read_gguf_header(std::span<const std::byte> bytes, const fs::path& file) {
    return GgufParser(bytes, file).parse();
}

}  // namespace attn::io
