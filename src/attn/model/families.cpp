// The registry: the only list of the families attn runs. Each line names the descriptor that
// the family's own file defines; the order is the one messages list them in.
#include "attn/model/families.hpp"

#include <array>

namespace attn::model {

extern const Family gpt2_family;
extern const Family bert_family;
extern const Family llama_family;
extern const Family mistral_family;
extern const Family qwen2_family;
extern const Family bloom_family;
extern const Family t5_family;
extern const Family gpt_neox_family;
extern const Family gemma2_family;
extern const Family gemma3_text_family;
extern const Family qwen3_family;
extern const Family phi3_family;
extern const Family olmo2_family;

namespace {

const std::array kFamilies{&gpt2_family,   &bert_family,        &llama_family, &mistral_family,
                           &qwen2_family,  &bloom_family,       &t5_family,    &gpt_neox_family,
                           &gemma2_family, &gemma3_text_family, &qwen3_family, &phi3_family,
                           &olmo2_family};

}  // namespace

std::span<const Family* const> families() {
    return kFamilies;
}

const Family* find_family(std::string_view model_type) {
    for (const Family* f : kFamilies)
        if (f->model_type == model_type) return f;
    return nullptr;
}

std::string family_names(bool lm_only) {
    std::string out;
    for (const Family* f : kFamilies)
        if (f->lm_head || !lm_only) out += (out.empty() ? "" : ", ") + std::string(f->model_type);
    return out;
}

}  // namespace attn::model
