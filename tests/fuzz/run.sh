#!/usr/bin/env bash
# Builds the libFuzzer targets of attn's readers with clang (cmake --preset fuzz) and runs
# them one after the other: 10 million inputs for the safetensors and GGUF header readers, 2
# million for each of the others (config.json, .npy, word vectors), each process capped at
# 2 GiB resident and 256 MiB per allocation. Seeds are tests/fuzz/corpus/<target>/; what the fuzzer finds goes
# to build/fuzz/corpus/<target>/, crashes to build/fuzz/artifacts/. Not part of the test suite
# (it takes a while): run it by hand after changing a reader.
#
#   tests/fuzz/run.sh [TARGET...]        e.g. tests/fuzz/run.sh config_fuzz
#   RUNS=100000 tests/fuzz/run.sh        fewer inputs for every target
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
    targets=(safetensors_header_fuzz gguf_fuzz gguf_tokenizer_fuzz config_fuzz npy_fuzz
        word_vectors_fuzz)
mkdir -p build/fuzz/artifacts
status=0
for target in "${targets[@]}"; do
    runs=${RUNS:-2000000}
    case $target in safetensors_header_fuzz | gguf_fuzz) runs=${RUNS:-10000000} ;; esac
    seeds=tests/fuzz/corpus/${target%_fuzz}
    corpus=build/fuzz/corpus/${target%_fuzz}
    mkdir -p "$corpus"
    echo "== $target: $runs inputs"
    if ! "build/fuzz/tests/fuzz/$target" -runs="$runs" -rss_limit_mb=2048 -malloc_limit_mb=256 \
        -max_len=${MAX_LEN:-1024} -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/ \
        "$corpus" "$seeds" 2>"build/fuzz/$target.log"; then
        status=1
        tail -40 "build/fuzz/$target.log"
    fi
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^Done' "build/fuzz/$target.log" || true
done
exit $status
