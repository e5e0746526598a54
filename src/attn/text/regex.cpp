#include "attn/text/regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <new>

#include "attn/text/unicode.hpp"

namespace attn::text {

struct Regex::Compiled {
    pcre2_code* code = nullptr;
    ~Compiled() { pcre2_code_free(code); }
};

Regex::Regex(const std::string& pattern) : compiled_(std::make_unique<Compiled>()) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    compiled_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                    PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    if (compiled_->code == nullptr) {
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(error, message, sizeof message);
        throw TokenizerError("pattern \"" + pattern + "\" at offset " + std::to_string(offset) +
                             ": " + reinterpret_cast<const char*>(message));
    }
    pcre2_jit_compile(compiled_->code, PCRE2_JIT_COMPLETE);  // the interpreter when JIT is absent
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

std::vector<Span> Regex::find_all(std::string_view text) const {
    std::vector<Span> spans;
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> owned(
        pcre2_match_data_create_from_pattern(compiled_->code, nullptr), &pcre2_match_data_free);
    pcre2_match_data* data = owned.get();
    if (data == nullptr) throw std::bad_alloc();
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    std::size_t at = 0;
    while (at <= text.size()) {
        const int rc = pcre2_match(compiled_->code, subject, text.size(), at, PCRE2_NO_UTF_CHECK,
                                   data, nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(rc, message, sizeof message);
            throw TokenizerError(std::string("pattern match failed: ") +
                                 reinterpret_cast<const char*>(message));
        }
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
        const std::size_t begin = ovector[0], end = ovector[1];
        if (end > begin) {
            spans.push_back({begin, end});
            at = end;
        } else {  // an empty match: step over one character
            if (begin >= text.size()) break;
            at = begin + decode_at(text, begin).length;
        }
    }
    return spans;
}

std::string quote_regex(std::string_view literal) {
    std::string out = "\\Q";
    for (std::size_t at = 0;;) {
        const std::size_t end = literal.find("\\E", at);
        if (end == std::string_view::npos) {
            out.append(literal.substr(at));
            break;
        }
        out.append(literal.substr(at, end - at));
        out += "\\E\\\\E\\Q";
        at = end + 2;
    }
    return out + "\\E";
}

}  // namespace attn::text
