#include "io/gguf_store.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

#include "runtime/memory_budget.hpp"

namespace attn::io {

namespace {

using Kind = GgufError::Kind;

std::vector<std::uint64_t> reversed(std::span<const std::uint64_t> s) {
    return {s.rbegin(), s.rend()};
}

}  // namespace

GgufStore::GgufStore(std::shared_ptr<const GgufFile> file, const std::vector<GgufTensorName>& names)
    : file_(std::move(file)) {
    for (const GgufTensorName& n : names) by_hf_.emplace(n.hf, n);
}

const GgufTensorName* GgufStore::find(std::span<const std::string> names) const {
    for (const std::string& name : names) {
        const auto it = by_hf_.find(name);
        if (it != by_hf_.end() && file_->find(it->second.gguf) != nullptr) return &it->second;
    }
    return nullptr;
}

runtime::TensorView GgufStore::tensor(std::span<const std::string> names,
                                      std::span<const std::uint64_t> shape) const {
    const GgufTensorName* n = find(names);
    if (n == nullptr) {
        const std::string wanted = names.empty() ? std::string() : names.front();
        std::string gguf;
        for (const std::string& name : names)
            if (const auto it = by_hf_.find(name); it != by_hf_.end() && gguf.empty())
                gguf = it->second.gguf;
        throw GgufError(
            Kind::missing, file_->path(), gguf.empty() ? wanted : gguf,
            fmt::format("is missing (the model's {}, shape [{}])", wanted, fmt::join(shape, ", ")));
    }
    const GgufTensorInfo& info = *file_->find(n->gguf);
    const runtime::TensorView stored = file_->view(info);  // unsupported types first
    const std::vector<std::uint64_t> want =
        n->stored == GgufStored::transposed
            ? reversed(shape)
            : std::vector<std::uint64_t>(shape.begin(), shape.end());
    if (stored.shape != want)
        throw GgufError(Kind::shape, file_->path(), info.name,
                        fmt::format("has shape [{}] (C order; ne [{}]), the model's {} needs [{}]",
                                    fmt::join(stored.shape, ", "), fmt::join(info.ne, ", "), n->hf,
                                    fmt::join(want, ", ")));
    if (n->stored == GgufStored::as_is) return stored;
    if (n->stored == GgufStored::rope_interleaved &&
        (n->head_dim == 0 || n->head_dim % 2 != 0 || stored.shape.empty() ||
         stored.shape[0] % n->head_dim != 0))
        throw GgufError(Kind::shape, file_->path(), info.name,
                        fmt::format("has {} rows, not whole heads of {} (even) rows",
                                    stored.shape.empty() ? 0 : stored.shape[0], n->head_dim));
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = made_.find(n->hf);
    if (it != made_.end()) return it->second.view;
    return make(*n, stored);
}

runtime::TensorView GgufStore::make(const GgufTensorName& n,
                                    const runtime::TensorView& stored) const {
    Made m;
    const std::uint64_t numel = stored.numel();
    if (n.stored == GgufStored::rope_interleaved) {
        // rows of the stored type moved whole: HF row h hd + j hd/2 + i <- GGUF h hd + 2i + j
        const std::uint64_t rows = stored.shape[0], hd = n.head_dim;
        const std::uint64_t row_bytes = stored.bytes.size() / rows;
        runtime::reserve(stored.bytes.size(), n.gguf);
        m.bytes.resize(stored.bytes.size());
        for (std::uint64_t h = 0; h < rows / hd; ++h)
            for (std::uint64_t j = 0; j < 2; ++j)
                for (std::uint64_t i = 0; i < hd / 2; ++i)
                    std::memcpy(m.bytes.data() + (h * hd + j * hd / 2 + i) * row_bytes,
                                stored.bytes.data() + (h * hd + 2 * i + j) * row_bytes, row_bytes);
        m.view = {stored.dtype, stored.shape, m.bytes};
    } else {
        runtime::reserve(runtime::checked_mul(numel, 8, n.gguf), n.gguf);
        std::vector<float> values(numel);
        stored.to_float(values);
        std::vector<float> out(numel);
        if (n.stored == GgufStored::transposed) {
            // out (cols, rows) = stored (rows, cols)^T
            const std::uint64_t rows = stored.shape.size() == 2 ? stored.shape[0] : 1;
            const std::uint64_t cols = numel / std::max<std::uint64_t>(rows, 1);
            for (std::uint64_t r = 0; r < rows; ++r)
                for (std::uint64_t c = 0; c < cols; ++c) out[c * rows + r] = values[r * cols + c];
        } else {  // plus_one: w = stored - 1
            for (std::uint64_t i = 0; i < numel; ++i) out[i] = values[i] - 1.0f;
        }
        m.bytes.resize(numel * sizeof(float));
        std::memcpy(m.bytes.data(), out.data(), m.bytes.size());
        m.view = {runtime::DType::F32,
                  n.stored == GgufStored::transposed ? reversed(stored.shape) : stored.shape,
                  m.bytes};
    }
    return made_.emplace(n.hf, std::move(m)).first->second.view;
}

std::string GgufStore::stored_name(std::span<const std::string> names) const {
    if (const GgufTensorName* n = find(names)) return n->gguf;
    return names.empty() ? std::string() : names.front();
}

void GgufStore::release(std::span<const std::string> names) const {
    const GgufTensorName* n = find(names);
    if (n == nullptr) return;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        made_.erase(n->hf);
    }
    file_->release(*file_->find(n->gguf));
}

}  // namespace attn::io
