#!/usr/bin/env bash
# Benchmark (not a test): the fused attention kernel near the machine's FMA ceiling.
#   1. kernel_bench (tests/bench/kernel_bench.cpp, built here as the CMake target of that name):
#      the FMA ceiling (AVX-512 and AVX2, 1 and 2 threads) and the kernel alone, compute only,
#      for n, d = 64 and 128, 1 and 2 threads, causal and not, 1 head and 32 query heads over
#      8 key/value heads; GFLOP/s = 4 n^2 d per query head (half for causal) and the fraction
#      of the ceiling.
#      With a score bias (--bias none,alibi,t5: one head, as attn::forward builds it) beside
#      none, its overhead in the same run. The ceiling is the best of 5 repetitions before and
#      after the kernel rows, the higher one used.
#   2. The whole `attn attend --input X.npy --dq d --dv d --show context -o out.npy` process
#      (start, reading X, the projections, the kernel, writing), one head, same n, d, threads
#      and causal; GFLOP/s of the attention alone set against the same ceiling. At n = 16,384
#      and 65,536 (d = 64; d = 128 at 16,384) also with --scheme rope (q and k rotated before
#      the kernel; split and interleaved pairs), alibi and t5 (a 32-bucket table), each with
#      its overhead over the plain row. Each row is the best of RUNS processes.
#   3. ggml's CPU flash attention (ggml_flash_attn_ext, the kernel llama.cpp uses: Q float32,
#      K and V float16 as in llama.cpp's cache, causal by an f16 mask) on the same shapes, when
#      GGML_SRC names a ggml source tree: it is built in a temporary folder and nothing of it
#      stays. Without GGML_SRC the column is left out and the output says so.
# The load average is printed beside the figures: on a busy machine they are only indicative.
# Usage: tests/bench/kernel.sh [--short]       (--short: n = 4096 only)
# Environment: BUILD=build/release, GGML_SRC (a ggml checkout), GGML_BUILD (a folder to build
# ggml in and keep, instead of a temporary one), RUNS=1 (kernel_bench's --runs, and processes
# per whole-process row), NS="4096 16384 65536", SCHEMES="rope rope-interleaved alibi t5"
# (the whole-process rows beside none; "" for none only), KERNEL_ARGS (more kernel_bench
# options, e.g. "--heads 1" to leave out the 32 heads)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$ROOT/build/release}
SHORT=${1:-}
NS=${NS:-4096 16384 65536}
[ "$SHORT" = --short ] && NS=4096
RUNS=${RUNS:-1}
SCHEMES=${SCHEMES-rope rope-interleaved alibi t5}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cmake --build "$BUILD" --target kernel_bench attn -j2 >"$WORK/build.txt" 2>&1 ||
    { cat "$WORK/build.txt" >&2; exit 1; }
"$BUILD/kernel_bench" --runs "$RUNS" --n "$(echo $NS | tr ' ' ,)" ${KERNEL_ARGS:-} | tee "$WORK/kernel.txt"
# The ceiling of the kernel's instruction set per thread count, from kernel_bench's table.
ISA=$(sed -n 's/^kernel instruction set: //p' "$WORK/kernel.txt")
# ceiling THREADS [cpu]: per wall second, or with "cpu" per CPU second (the higher of the
# measures before and after the kernel rows: the table's last two columns).
ceiling() {
    local label="AVX2"; [ "$ISA" = avx512 ] && label="AVX-512"
    awk -v l="$label" -v t="$1" -v c="${2:-}" \
        '$1 == l && $(NF-4) == t { print (c == "cpu" ? $NF : $(NF-1)) }' "$WORK/kernel.txt"
}

echo
echo "whole process: attn attend --input X.npy --dq d --dv d [--scheme S] --show context -o out.npy"
echo "(1 head; best of $RUNS; vs none: seconds over the plain row's, minus 1; cpu vs: the same of"
echo " the CPU seconds, steadier on a loaded machine; wall to the microsecond, CPU to 10 ms)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(cpu = user + system seconds of all threads: on a loaded machine wall time mostly waits)"
printf '%-7s %4s %7s %-17s %7s %9s %9s %9s %8s %12s %8s %8s %8s\n' n d causal scheme threads \
    seconds cpu GFLOP/s ceiling GFLOP/cpu-s ceiling "vs none" "cpu vs"
"$BUILD/attn" encode -n 32 -d 1 -f npy -o "$WORK/t5.npy"  # a (buckets, heads) table: sin(b)
for n in $NS; do
    for d in 64 128; do
        "$BUILD/attn" encode -n "$n" -d "$d" -f npy -o "$WORK/x.npy"
        schemes=none
        if [ "$n" = 16384 ] || { [ "$n" = 65536 ] && [ "$d" = 64 ]; }; then
            schemes="none $SCHEMES"
        fi
        for causal in no yes; do
            for t in 1 2; do
                none=0 none_cpu=0
                for scheme in $schemes; do
                    flag=""; [ $causal = yes ] && flag=--causal
                    case $scheme in
                    rope-interleaved) flag="$flag --scheme rope --layout interleaved" ;;
                    t5) flag="$flag --scheme t5 --bias-table $WORK/t5.npy" ;;
                    *) flag="$flag --scheme $scheme" ;;
                    esac
                    best=""
                    for _ in $(seq "$RUNS"); do
                        t0=$EPOCHREALTIME
                        /usr/bin/time -f '%U %S' -o "$WORK/t.txt" "$BUILD/attn" attend \
                            --input "$WORK/x.npy" --dq "$d" --dv "$d" $flag --threads "$t" \
                            --show context -o "$WORK/out.npy"
                        s=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f", b - a }')
                        read -r u y <<<"$(tail -1 "$WORK/t.txt")"
                        if [ -z "$best" ] || awk -v a="$s" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
                            best="$s $u $y"
                        fi
                    done
                    read -r s u y <<<"$best"
                    [ "$scheme" = none ] && none=$s none_cpu=$(awk -v u="$u" -v y="$y" 'BEGIN { print u + y }')
                    awk -v n="$n" -v d="$d" -v c="$causal" -v sc="$scheme" -v t="$t" -v s="$s" \
                        -v u="$u" -v y="$y" -v p="$(ceiling "$t")" -v pc="$(ceiling "$t" cpu)" \
                        -v none="$none" -v none_cpu="$none_cpu" \
                        'BEGIN { w = 4 * n * n * d * (c == "yes" ? 0.5 : 1) / 1e9; f = w / s;
                                 fc = w / (u + y > 0 ? u + y : 1e-9);
                                 vs = "-";
                                 if (sc != "none" && none > 0) vs = sprintf("%+.1f%%", 100 * (s / none - 1));
                                 vc = "-";
                                 if (sc != "none" && none_cpu > 0) vc = sprintf("%+.1f%%", 100 * ((u + y) / none_cpu - 1));
                                 printf "%-7s %4s %7s %-17s %7s %9.3f %9.3f %9.1f %7.0f%% %12.1f %7.0f%% %8s %8s\n",
                                        n, d, c, sc, t, s, u + y, f, 100 * f / p, fc, 100 * fc / pc, vs, vc }'
                done
            done
        done
    done
done

echo
if [ -z "${GGML_SRC:-}" ]; then
    echo "ggml: left out (set GGML_SRC to a ggml source tree to time ggml_flash_attn_ext beside)"
    exit 0
fi
GGML_BUILD=${GGML_BUILD:-$WORK/ggml}
cmake -S "$GGML_SRC" -B "$GGML_BUILD" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
    -DBUILD_SHARED_LIBS=OFF -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF >"$WORK/g.txt" 2>&1 &&
    cmake --build "$GGML_BUILD" -j2 --target ggml ggml-cpu ggml-base >>"$WORK/g.txt" 2>&1 ||
    { tail -20 "$WORK/g.txt" >&2; echo "ggml: build failed" >&2; exit 1; }
cat >"$WORK/ggml_fa.cpp" <<'CPP'
// ggml_flash_attn_ext on Q (n, d) x heads float32, K and V (n, d) x kv_heads float16.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include "ggml.h"
#include "ggml-cpu.h"
int main(int argc, char** argv) {
    const int n = atoi(argv[1]), d = atoi(argv[2]), heads = atoi(argv[3]), kv = atoi(argv[4]);
    const int threads = atoi(argv[5]), causal = atoi(argv[6]);
    size_t mem = size_t(n) * d * heads * 8 + size_t(n) * d * kv * 4 +
                 (causal ? size_t(n) * n * 2 : 0) + (size_t(256) << 20);
    ggml_init_params ip = {mem, nullptr, false};
    ggml_context* ctx = ggml_init(ip);
    ggml_tensor* q = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, d, n, heads);
    ggml_tensor* k = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, d, n, kv);
    ggml_tensor* v = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, d, n, kv);
    unsigned s = 12345;
    auto rnd = [&] { s = s * 1664525u + 1013904223u; return float(s >> 8) / 16777216.f * 2 - 1; };
    for (long i = 0; i < long(n) * d * heads; ++i) ((float*)q->data)[i] = rnd();
    for (long i = 0; i < long(n) * d * kv; ++i) {
        ((ggml_fp16_t*)k->data)[i] = ggml_fp32_to_fp16(rnd());
        ((ggml_fp16_t*)v->data)[i] = ggml_fp32_to_fp16(rnd());
    }
    ggml_tensor* mask = nullptr;
    if (causal) {
        mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, n, n);
        const ggml_fp16_t zero = ggml_fp32_to_fp16(0.f), ninf = ggml_fp32_to_fp16(-INFINITY);
        for (long i = 0; i < n; ++i)
            for (long j = 0; j < n; ++j) ((ggml_fp16_t*)mask->data)[i * n + j] = j <= i ? zero : ninf;
    }
    ggml_tensor* out = ggml_flash_attn_ext(ctx, q, k, v, mask, 1.f / std::sqrt(float(d)), 0.f, 0.f);
    ggml_flash_attn_ext_set_prec(out, GGML_PREC_F32);
    ggml_cgraph* gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    const std::clock_t c0 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    ggml_graph_compute_with_ctx(ctx, gf, threads);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%.4f %.4f\n", sec, double(std::clock() - c0) / CLOCKS_PER_SEC);
    ggml_free(ctx);
    return 0;
}
CPP
LIBS=$(find "$GGML_BUILD" -name 'libggml*.a' | sort -r | tr '\n' ' ')
g++ -O2 -std=c++17 -I"$GGML_SRC/include" "$WORK/ggml_fa.cpp" -Wl,--start-group $LIBS \
    -Wl,--end-group -fopenmp -pthread -lm -o "$WORK/ggml_fa" 2>"$WORK/gcc.txt" ||
    { cat "$WORK/gcc.txt" >&2; exit 1; }
echo "ggml_flash_attn_ext ($(cd "$GGML_SRC" && git rev-parse --short HEAD 2>/dev/null || echo tree)), compute only;"
echo "ratio = ggml's seconds / the fused kernel's, wall and cpu (n > 16,384: one head, no mask)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %4s %6s %7s %7s %9s %9s %9s %8s %7s %7s\n' n d heads causal threads seconds cpu \
    GFLOP/s ceiling ratio cpu-rat
for n in $NS; do
    for d in 64 128; do
        for hk in 1/1 32/8; do
            h=${hk%/*}; kv=${hk#*/}
            [ "$h" -gt 1 ] && [ "$n" -gt 16384 ] && continue
            for causal in no yes; do
                [ $causal = yes ] && [ "$n" -gt 16384 ] && continue  # an n x n mask
                for t in 1 2; do
                    read -r s u <<<"$("$WORK/ggml_fa" "$n" "$d" "$h" "$kv" "$t" \
                        $([ $causal = yes ] && echo 1 || echo 0))"
                    read -r os ou <<<"$(awk -v n="$n" -v d="$d" -v hk="$h/$kv" -v c="$causal" \
                        -v t="$t" '$1 == n && $2 == d && $3 == hk && $4 == c && $5 == "none" \
                        && $6 == t { print $7, $8 }' "$WORK/kernel.txt") 0 0"
                    awk -v n="$n" -v d="$d" -v h="$h" -v hk="$hk" -v c="$causal" -v t="$t" -v s="$s" \
                        -v u="$u" -v p="$(ceiling "$t")" -v o="$os" -v ou="$ou" \
                        'BEGIN { f = 4 * n * n * d * h * (c == "yes" ? 0.5 : 1) / s / 1e9;
                                 printf "%-7s %4s %6s %7s %7s %9.3f %9.3f %9.1f %7.0f%% %7s %7s\n",
                                        n, d, hk, c, t, s, u, f, 100 * f / p,
                                        (o > 0 ? sprintf("%.2fx", s / o) : "-"),
                                        (ou > 0 ? sprintf("%.2fx", u / ou) : "-") }'
                done
            done
        done
    done
done
