// A compiled pattern of a tokenizer file (pre-tokenizer Split, normalizer Replace), matched
// by PCRE2 in UTF mode with Unicode properties (UCP: \s \w \d and \p{L} \p{N} by the Unicode
// database, as Hugging Face's Oniguruma patterns mean them).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attn::text {

/// A byte range [begin, end) of the searched text.
struct Span {
    std::size_t begin, end;
};

class Regex {
  public:
    /// Throws TokenizerError naming the pattern and PCRE2's reason when it does not compile.
    explicit Regex(const std::string& pattern);
    ~Regex();
    Regex(Regex&&) noexcept;
    Regex& operator=(Regex&&) noexcept;

    /// Every non-empty, non-overlapping match from left to right. Text must be valid UTF-8.
    std::vector<Span> find_all(std::string_view text) const;

  private:
    struct Compiled;
    std::unique_ptr<Compiled> compiled_;
};

/// The pattern that matches `literal` itself (every metacharacter quoted).
std::string quote_regex(std::string_view literal);

}  // namespace attn::text
