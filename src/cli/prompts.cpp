#include "cli/prompts.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <istream>
#include <system_error>

#include "cli/errors.hpp"
#include "runtime/parallel.hpp"

namespace attn::cli {

PromptReader::PromptReader(const std::string& path, const text::Tokenizer* tokenizer,
                           std::size_t vocab)
    : input_(std::make_unique<io::InputFile>(path, true)),
      tokenizer_(tokenizer),
      vocab_(vocab),
      jsonl_(jsonl(path)) {}

std::optional<std::vector<std::int64_t>> PromptReader::next() {
    std::istream& in = input_->stream();
    std::string line;
    while (std::getline(in, line)) {  // split on \n only: a \r stays part of the text
        ++line_;
        if (line.empty()) continue;
        where_ = fmt::format("--prompts: {}, line {}", input_->name(), line_);
        std::vector<std::int64_t> ids;
        std::optional<std::string> text;
        if (jsonl_) {
            const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_discarded())
                throw UsageError(fmt::format(
                    "{}: not valid JSON (a line holds one object, in UTF-8 with paired \\u "
                    "escapes)",
                    where_));
            if (j.is_object() && j.size() == 1 && j.contains("text") && j["text"].is_string()) {
                text = j["text"].get<std::string>();
            } else if (j.is_object() && j.size() == 1 && j.contains("ids") && j["ids"].is_array()) {
                for (const auto& v : j["ids"]) {
                    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
                        v.get<std::uint64_t>() >= vocab_)
                        throw UsageError(
                            fmt::format("{}: {} is not a token id of this model (0..{})", where_,
                                        v.dump(), vocab_ - 1));
                    ids.push_back(v.get<std::int64_t>());
                }
            } else {
                throw UsageError(fmt::format(
                    "{}: not a JSON object {{\"text\": \"...\"}} or {{\"ids\": [...]}}", where_));
            }
        } else {
            if (line.back() == '\r' && !warned_crlf_)
                fmt::print(stderr,
                           "attn: warning: {} ends in a carriage return (CRLF); it is part of the "
                           "prompt's text\n",
                           where_);
            warned_crlf_ = warned_crlf_ || line.back() == '\r';
            text = std::move(line);
        }
        if (text) {
            if (!tokenizer_)
                throw UsageError(fmt::format(
                    "{}: a text, and the model's folder has no tokenizer (give ids)", where_));
            const auto e = naming_option(where_, [&] { return tokenizer_->encode(*text); });
            for (const auto id : e.ids) {
                if (static_cast<std::uint64_t>(id) >= vocab_)
                    throw UsageError(fmt::format(
                        "{}: the tokenizer gives id {}, beyond the model's vocab_size {}", where_,
                        id, vocab_));
                ids.push_back(static_cast<std::int64_t>(id));
            }
        }
        if (ids.empty()) throw UsageError(where_ + ": the prompt gives no tokens");
        ++count_;
        return ids;
    }
    if (in.bad()) throw std::system_error(errno, std::generic_category(), input_->name());
    if (count_ == 0) throw UsageError(fmt::format("--prompts: {} holds no prompt", input_->name()));
    return std::nullopt;
}

std::vector<std::vector<std::int64_t>> read_prompts(const std::string& path,
                                                    const text::Tokenizer* tokenizer,
                                                    std::size_t vocab,
                                                    std::vector<std::string>* where) {
    PromptReader reader(path, tokenizer, vocab);
    std::vector<std::vector<std::int64_t>> prompts;
    while (auto ids = reader.next()) {
        prompts.push_back(std::move(*ids));
        if (where) where->push_back(reader.where());
    }
    return prompts;
}

std::size_t prompt_workers(const OpenModel& m) {
    return m.source.gguf() != nullptr ? 1 : std::max<std::size_t>(thread_limit(), 1);
}

}  // namespace attn::cli
