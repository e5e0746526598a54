#include "attn/text/sentencepiece_model.hpp"

#include <sentencepiece_processor.h>

#include "attn/text/unicode.hpp"

namespace attn::text {

struct SentencePieceModel::Processor {
    sentencepiece::SentencePieceProcessor sp;
};

SentencePieceModel::SentencePieceModel(std::string_view model_bytes)
    : processor_(std::make_unique<Processor>()) {
    const auto status = processor_->sp.LoadFromSerializedProto(
        absl::string_view(model_bytes.data(), model_bytes.size()));
    if (!status.ok()) throw TokenizerError("not a SentencePiece model: " + status.ToString());
    for (int id = 0; id < processor_->sp.GetPieceSize(); ++id)
        vocabulary_.add(processor_->sp.IdToPiece(id), id);
}

SentencePieceModel::~SentencePieceModel() = default;

void SentencePieceModel::tokenize(const std::string& piece, std::vector<Token>& out) const {
    std::vector<int> ids;
    const auto status = processor_->sp.Encode(absl::string_view(piece.data(), piece.size()), &ids);
    if (!status.ok()) throw TokenizerError("SentencePiece: " + status.ToString());
    for (const int id : ids) out.push_back({id, processor_->sp.IdToPiece(id)});
}

TokenId SentencePieceModel::bos() const {
    return processor_->sp.bos_id();
}
TokenId SentencePieceModel::eos() const {
    return processor_->sp.eos_id();
}

}  // namespace attn::text
