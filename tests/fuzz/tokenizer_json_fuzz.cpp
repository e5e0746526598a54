// libFuzzer target: tokenizer.json from untrusted bytes. Reading must end in a Tokenizer or a
// TokenizerError, never a crash, a hang or an allocation past libFuzzer's limit; a tokenizer
// that loads then encodes a few fixed texts and the input itself.
//
//   cmake -S . -B build/fuzz -DCMAKE_CXX_COMPILER=clang++ -DATTN_FUZZ=ON
//   cmake --build build/fuzz --target tokenizer_json_fuzz
//   mkdir -p build/fuzz/corpus && build/fuzz/tests/fuzz/tokenizer_json_fuzz -runs=2000000 \
//       -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=4096 -timeout=10 \
//       -dict=tests/fuzz/tokenizer_json.dict build/fuzz/corpus tests/fuzz/corpus/tokenizer_json
//
// New inputs go to the first folder (build/fuzz/corpus); the seeds in tests/fuzz/corpus are
// read only.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/text/tokenizer_json.hpp"
#include "attn/text/unicode.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    try {
        const attn::text::Tokenizer t = attn::text::tokenizer_from_json(bytes);
        for (const char* text :
             {"", "Hello world", " a  b\r\n\tc ", "caf\xC3\xA9 \xE6\x97\xA5", "<s>[CLS]"})
            t.encode(text);
        if (attn::text::is_valid_utf8(bytes)) t.encode(bytes);
    } catch (const attn::text::TokenizerError&) {
    }
    return 0;
}
