#include "io/safetensors.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <system_error>
#include <unordered_set>

#include "io/model_locator.hpp"
#include "runtime/memory_budget.hpp"

namespace attn::io {

namespace fs = std::filesystem;
using Kind = CheckpointError::Kind;

namespace {

// safetensors' own bound (MAX_HEADER_SIZE in the reference implementation).
constexpr std::uint64_t kMaxHeader = 100'000'000;

std::string describe(const fs::path& file, const std::string& tensor, const std::string& detail) {
    return file.string() + ": " + (tensor.empty() ? "" : "tensor '" + tensor + "' ") + detail;
}

[[noreturn]] void fail(Kind kind, const fs::path& file, const std::string& tensor,
                       const std::string& detail) {
    throw CheckpointError(kind, file, tensor, detail);
}

std::string shape_text(std::span<const std::uint64_t> shape) {
    return fmt::format("[{}]", fmt::join(shape, ", "));
}

/// The entry's fields, or a header_json error naming the tensor and what is wrong.
TensorInfo parse_entry(const std::string& name, const nlohmann::json& entry, const fs::path& file) {
    if (!entry.is_object()) fail(Kind::header_json, file, name, "is not a JSON object");
    const auto dtype = entry.find("dtype");
    const auto shape = entry.find("shape");
    const auto offsets = entry.find("data_offsets");
    if (dtype == entry.end() || !dtype->is_string())
        fail(Kind::header_json, file, name, "has no \"dtype\" string");
    if (shape == entry.end() || !shape->is_array())
        fail(Kind::header_json, file, name, "has no \"shape\" array");
    if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2)
        fail(Kind::header_json, file, name, "has no \"data_offsets\" [begin, end]");
    TensorInfo t;
    t.name = name;
    t.dtype = dtype->get<std::string>();
    if (shape->size() > 64) fail(Kind::header_json, file, name, "has a shape of rank above 64");
    for (const auto& s : *shape) {
        if (!s.is_number_unsigned())
            fail(Kind::header_json, file, name,
                 "has a shape entry that is not an unsigned integer");
        t.shape.push_back(s.get<std::uint64_t>());
    }
    for (const auto& o : *offsets)
        if (!o.is_number_unsigned())
            fail(Kind::header_json, file, name, "has data_offsets that are not unsigned integers");
    const auto begin = (*offsets)[0].get<std::uint64_t>(), end = (*offsets)[1].get<std::uint64_t>();
    if (begin > end)
        fail(Kind::offsets, file, name,
             fmt::format("has data_offsets [{}, {}]: begin after end", begin, end));
    if (!safetensors_dtype_size(t.dtype))
        fail(Kind::dtype, file, name,
             "has dtype '" + t.dtype + "', which safetensors does not define");
    t.begin = begin;  // relative to the data until every range is checked
    t.end = end;
    return t;
}

}  // namespace

CheckpointError::CheckpointError(Kind k, fs::path f, std::string t, const std::string& detail)
    : std::invalid_argument(describe(f, t, detail)),
      kind(k),
      file(std::move(f)),
      tensor(std::move(t)) {}

std::optional<std::size_t> safetensors_dtype_size(std::string_view name) {
    static const std::map<std::string_view, std::size_t> sizes{
        {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
        {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
        {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8}};
    const auto it = sizes.find(name);
    if (it == sizes.end()) return std::nullopt;
    return it->second;
}

SafetensorsHeader read_safetensors_header(std::span<const std::byte> bytes, const fs::path& file) {
    if (bytes.size() < 8)
        fail(Kind::truncated, file, "",
             fmt::format("is {} bytes, shorter than the 8-byte header size of a safetensors file",
                         bytes.size()));
    std::uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);  // little-endian (runtime/tensor_view.hpp asserts the host)
    if (n > kMaxHeader)
        fail(Kind::header_size, file, "",
             fmt::format("header size {} is above safetensors' limit of {} bytes", n, kMaxHeader));
    if (n > bytes.size() - 8)
        fail(Kind::header_size, file, "",
             fmt::format("header size {} runs past the end of the file ({} bytes): truncated "
                         "or not a safetensors file",
                         n, bytes.size()));
    // nlohmann's tree takes up to ~16 bytes per header byte (objects of small numbers).
    runtime::reserve(16 * n, "the safetensors header of " + file.string());

    // Duplicate top-level names would hide a tensor: the parser's callback sees every key.
    std::string duplicate;
    std::unordered_set<std::string> keys;
    const auto on_event = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& v) {
        if (depth == 1 && event == nlohmann::json::parse_event_t::key && duplicate.empty() &&
            v.is_string() && !keys.insert(v.get<std::string>()).second)
            duplicate = v.get<std::string>();
        return true;
    };
    const char* text = reinterpret_cast<const char*>(bytes.data() + 8);
    const nlohmann::json header = nlohmann::json::parse(text, text + n, on_event, false);
    if (header.is_discarded()) fail(Kind::header_json, file, "", "header is not valid JSON");
    if (!header.is_object()) fail(Kind::header_json, file, "", "header is not a JSON object");
    if (!duplicate.empty())
        fail(Kind::header_json, file, duplicate, "is named twice in the header");

    SafetensorsHeader out;
    out.data_start = 8 + n;
    const std::uint64_t data_size = bytes.size() - out.data_start;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object())
                fail(Kind::header_json, file, "", "\"__metadata__\" is not a JSON object");
            for (const auto& [key, value] : entry.items())
                if (value.is_string()) out.metadata[key] = value.get<std::string>();
            continue;
        }
        out.tensors.push_back(parse_entry(name, entry, file));
    }
    // Each tensor's own range first: inside the data, then not overlapping its neighbour.
    std::sort(out.tensors.begin(), out.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    for (const auto& t : out.tensors)
        if (t.end > data_size)
            fail(Kind::offsets, file, t.name,
                 fmt::format("has data_offsets [{}, {}] past the end of the data ({} bytes): the "
                             "file is truncated or its header is wrong",
                             t.begin, t.end, data_size));
    // Sorted by begin: a range overlaps an earlier one iff it starts before the furthest end.
    for (std::size_t i = 1, furthest = 0; i < out.tensors.size(); ++i) {
        const auto& prev = out.tensors[furthest];
        const auto& t = out.tensors[i];
        if (t.end > prev.end) furthest = i;
        if (t.begin < prev.end && t.end > t.begin)
            fail(Kind::overlap, file, t.name,
                 fmt::format("has data_offsets [{}, {}] overlapping tensor '{}' [{}, {}]", t.begin,
                             t.end, prev.name, prev.begin, prev.end));
    }
    for (auto& t : out.tensors) {
        std::uint64_t count = 1;
        bool overflow = false;
        for (const auto s : t.shape) {
            if (s != 0 && count > std::numeric_limits<std::uint64_t>::max() / s) overflow = true;
            count *= s;
        }
        const std::uint64_t size = *safetensors_dtype_size(t.dtype);
        if (overflow || count > std::numeric_limits<std::uint64_t>::max() / size ||
            count * size != t.end - t.begin)
            fail(Kind::byte_size, file, t.name,
                 fmt::format(
                     "has {} bytes, but shape {} of {} needs {}", t.end - t.begin,
                     shape_text(t.shape), t.dtype,
                     overflow ? std::string("more than 2^64") : fmt::format("{}", count * size)));
        t.begin += out.data_start;
        t.end += out.data_start;
    }
    return out;
}

// ---------------------------------------------------------------------------------------------

void Checkpoint::add_file(const fs::path& path,
                          const std::unordered_map<std::string, std::string>* only) {
    runtime::MappedFile mapped(path);
    const SafetensorsHeader header = read_safetensors_header(mapped.bytes(), path);
    const std::size_t index = files_.size();
    for (const auto& t : header.tensors) {
        if (only != nullptr) {
            const auto it = only->find(t.name);
            if (it == only->end() || fs::path(it->second) != path.filename()) continue;
        }
        tensors_.push_back({t, index});
    }
    files_.push_back(std::move(mapped));
    std::sort(tensors_.begin(), tensors_.end(),
              [](const auto& a, const auto& b) { return a.info.name < b.info.name; });
    for (std::size_t i = 1; i < tensors_.size(); ++i)
        if (tensors_[i].info.name == tensors_[i - 1].info.name)
            fail(Kind::index, path_of(tensors_[i]), tensors_[i].info.name,
                 "is also in " + path_of(tensors_[i - 1]).string());
}

Checkpoint Checkpoint::open_file(const fs::path& file) {
    Checkpoint c;
    c.add_file(file, nullptr);
    return c;
}

namespace {

/// The pickled weights in folder, if any (pytorch_model.bin, its index, any *.bin).
std::optional<fs::path> pickle_in(const fs::path& folder) {
    std::error_code ec;
    for (const auto& name : {"pytorch_model.bin", "pytorch_model.bin.index.json"})
        if (fs::exists(folder / name, ec)) return folder / name;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".bin") return it->path();
    return std::nullopt;
}

/// weight_map of model.safetensors.index.json: tensor -> shard file name (a plain name in the
/// folder, never a path out of it).
std::unordered_map<std::string, std::string> read_index(const fs::path& index) {
    std::ifstream in(index, std::ios::binary);
    if (!in) throw std::system_error(errno, std::generic_category(), index.string());
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded())
        fail(Kind::index, index, "", "is not valid JSON (cut short, or not an index)");
    if (!json.is_object()) fail(Kind::index, index, "", "is not a JSON object");
    const auto map = json.find("weight_map");
    if (map == json.end() || !map->is_object())
        fail(Kind::index, index, "", "has no \"weight_map\" object");
    std::unordered_map<std::string, std::string> out;
    for (const auto& [name, shard] : map->items()) {
        if (!shard.is_string())
            fail(Kind::index, index, name, "maps to a shard that is not a string");
        const std::string file = shard.get<std::string>();
        if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..")
            fail(Kind::index, index, name, "maps to '" + file + "', not a file of the folder");
        out[name] = file;
    }
    return out;
}

}  // namespace

Checkpoint Checkpoint::open_folder(const fs::path& folder) {
    std::error_code ec;
    for (const char* name : {"model.safetensors", "model.safetensors.index.json"})
        check_blob(folder / name);  // a snapshot's link whose blob is gone, named as such
    if (fs::exists(folder / "model.safetensors", ec))
        return open_file(folder / "model.safetensors");
    const fs::path index = folder / "model.safetensors.index.json";
    if (!fs::exists(index, ec)) {
        if (const auto pickle = pickle_in(folder))
            fail(
                Kind::pickle, *pickle, "",
                "is a pickled PyTorch checkpoint, which attn does not load (loading a pickle runs "
                "code); convert it to safetensors (save_pretrained(..., safe_serialization=True))");
        fail(Kind::no_weights, folder, "",
             "holds no model.safetensors and no model.safetensors.index.json");
    }
    const auto weight_map = read_index(index);
    std::set<std::string> shards;
    for (const auto& [name, shard] : weight_map) shards.insert(shard);
    Checkpoint c;
    for (const auto& shard : shards) {
        check_blob(folder / shard);
        if (!fs::exists(folder / shard, ec))
            fail(Kind::index, index, "", "names shard '" + shard + "', which is not in the folder");
        c.add_file(folder / shard, &weight_map);
    }
    for (const auto& [name, shard] : weight_map)
        if (c.find(name) == nullptr)
            fail(Kind::missing, folder / shard, name, "is not in its shard");
    return c;
}

const CheckpointTensor* Checkpoint::find(std::string_view name) const {
    const auto it =
        std::lower_bound(tensors_.begin(), tensors_.end(), name,
                         [](const auto& t, std::string_view n) { return t.info.name < n; });
    return it != tensors_.end() && it->info.name == name ? &*it : nullptr;
}

const fs::path& Checkpoint::path_of(const CheckpointTensor& t) const {
    return files_[t.file].path();
}

runtime::TensorView Checkpoint::view(const CheckpointTensor& t) const {
    runtime::DType dtype;
    if (t.info.dtype == "F32")
        dtype = runtime::DType::F32;
    else if (t.info.dtype == "F16")
        dtype = runtime::DType::F16;
    else if (t.info.dtype == "BF16")
        dtype = runtime::DType::BF16;
    else
        fail(Kind::unsupported, path_of(t), t.info.name,
             "has dtype " + t.info.dtype + "; attn computes with F32, F16 and BF16 tensors");
    const auto bytes = files_[t.file].bytes().subspan(t.info.begin, t.info.end - t.info.begin);
    return {dtype, t.info.shape, bytes};
}

runtime::TensorView Checkpoint::expect(std::span<const std::string> names,
                                       std::span<const std::uint64_t> shape) const {
    for (const auto& name : names) {
        const CheckpointTensor* t = find(name);
        if (t == nullptr) continue;
        runtime::TensorView v = view(*t);  // an unsupported dtype first: shape is in its units
        if (!std::equal(shape.begin(), shape.end(), t->info.shape.begin(), t->info.shape.end()))
            fail(Kind::shape, path_of(*t), name,
                 fmt::format("has shape {}, the config implies {}", shape_text(t->info.shape),
                             shape_text(shape)));
        return v;
    }
    const std::string wanted = names.empty() ? std::string() : names.front();
    fail(Kind::missing, files_.empty() ? fs::path() : first_path(), wanted,
         fmt::format("is missing (shape {}{})", shape_text(shape),
                     names.size() > 1 ? fmt::format("; also looked for '{}'",
                                                    fmt::join(names.subspan(1), "', '"))
                                      : std::string()));
}

void Checkpoint::release(std::span<const std::string> names) const {
    for (const auto& name : names)
        if (const CheckpointTensor* t = find(name)) return release(*t);
}

std::string Checkpoint::stored_name(std::span<const std::string> names) const {
    for (const auto& name : names)
        if (find(name) != nullptr) return name;
    return names.empty() ? std::string() : names.front();
}

void Checkpoint::release(const CheckpointTensor& t) const {
    files_[t.file].release(t.info.begin, t.info.end - t.info.begin);
}

}  // namespace attn::io
