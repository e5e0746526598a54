// attn's reading of a GGUF file, written out for tests/io/gguf_ggml_check.py to compare with
// ggml's own (libggml-base's gguf_* readers and to_float):
//
//   gguf_dump FILE DIR   DIR/header.json (version, alignment, data offset, every key's type and
//                        value, every tensor's name, type, ne, offset, bytes) and DIR/<i>.npy,
//                        tensor i widened to float32 through runtime::TensorView (C order);
//                        a tensor whose type attn does not widen gets "error" in header.json.
//   gguf_dump --types    one line per ggml type id attn knows: "id name block bytes widened".
//
// A file attn refuses: its one-line message on stderr, exit 2.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/gguf.hpp"
#include "runtime/dequantize.hpp"

namespace {

using attn::io::GgufType;
using attn::io::GgufValue;

nlohmann::json element(const GgufValue& v, std::uint64_t i) {
    if (v.type == GgufType::string) return std::string(v.strings[i]);
    if (v.type == GgufType::boolean) return v.number(i) != 0;
    if (v.type == GgufType::u64) {
        std::uint64_t u;
        std::memcpy(&u, v.data.data() + 8 * i, 8);
        return u;
    }
    if (v.is_integer()) return v.integer(i);
    // Floats as their double's bits in hex: nan and infinities survive, and equality is exact.
    const double d = v.number(i);
    std::uint64_t bits;
    std::memcpy(&bits, &d, 8);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(bits));
    return std::string(hex);
}

void write_npy(const std::string& path, const std::vector<std::uint64_t>& shape,
               const std::vector<float>& values) {
    std::string dims;
    for (std::size_t k = 0; k < shape.size(); ++k)
        dims += (k > 0 ? ", " : "") + std::to_string(shape[k]);
    if (shape.size() == 1) dims += ",";
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    const auto len = static_cast<std::uint16_t>(header.size());
    out.write(reinterpret_cast<const char*>(&len), 2);
    out << header;
    out.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size() * 4));
}

int dump(const std::string& file, const std::string& dir) {
    const attn::io::GgufFile g(file);
    nlohmann::json h;
    h["version"] = g.header().version;
    h["alignment"] = g.header().alignment;
    h["data_offset"] = g.header().data_offset;
    auto& kv = h["metadata"] = nlohmann::json::array();
    for (const auto& [key, v] : g.metadata().entries()) {
        nlohmann::json values = nlohmann::json::array();
        for (std::uint64_t i = 0; i < v.count; ++i) values.push_back(element(v, i));
        kv.push_back({{"key", std::string(key)},
                      {"type", std::string(attn::io::gguf_type_name(v.type))},
                      {"array", v.is_array},
                      {"values", values}});
    }
    auto& tensors = h["tensors"] = nlohmann::json::array();
    for (std::size_t i = 0; i < g.tensors().size(); ++i) {
        const auto& t = g.tensors()[i];
        nlohmann::json j = {{"name", t.name},     {"type", t.type},   {"ne", t.ne},
                            {"offset", t.offset}, {"bytes", t.bytes}, {"begin", t.begin}};
        try {
            const attn::runtime::TensorView view = g.view(t);
            std::vector<float> values(view.numel());
            attn::runtime::dequantize(view.dtype, view.bytes, values);
            write_npy(dir + "/" + std::to_string(i) + ".npy", view.shape, values);
            view.to_float(values);
            write_npy(dir + "/" + std::to_string(i) + ".view.npy", view.shape, values);
        } catch (const attn::io::GgufError& e) {
            j["error"] = e.what();
        }
        tensors.push_back(j);
    }
    std::ofstream(dir + "/header.json") << h.dump(1) << '\n';
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 1 && args[0] == "--types") {
        for (std::uint32_t id = 0; id < 64; ++id)
            if (const auto t = attn::io::ggml_type(id))
                std::cout << id << ' ' << t->name << ' ' << t->block << ' ' << t->size << ' '
                          << (t->dtype ? 1 : 0) << '\n';
        return 0;
    }
    if (args.size() != 2) {
        std::cerr << "usage: gguf_dump FILE DIR | --types\n";
        return 2;
    }
    try {
        return dump(args[0], args[1]);
    } catch (const attn::io::GgufError& e) {
        std::cerr << e.what() << '\n';
        return 2;
    }
}
