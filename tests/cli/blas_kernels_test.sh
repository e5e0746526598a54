# attn picks OpenBLAS's kernels itself (SkylakeX on AVX-512, Haswell on AVX2) where
# OPENBLAS_CORETYPE is not set: the results must not change beyond float32 rounding.
. "$(dirname "$0")/lib.sh"
numpy_or_skip

"$ATTN" encode -n 512 -d 64 -o "$WORK/x.npy"
run_with() {  # run_with OUT.npy [VAR=VALUE]: attention of x with the given environment
    local out=$1
    shift
    env -u OPENBLAS_CORETYPE "$@" "$ATTN" attend --input "$WORK/x.npy" --dq 64 --dv 64 \
        --show context -o "$out" || fail "attend with $* failed"
}
run_with "$WORK/auto.npy"
run_with "$WORK/generic.npy" OPENBLAS_CORETYPE=Prescott
run_with "$WORK/one.npy" OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=Prescott
"$PYTHON" - "$WORK" <<'PY' || fail "results differ between kernels"
import sys, numpy as np
w = sys.argv[1]
a, b, c = (np.load(f"{w}/{f}.npy") for f in ("auto", "generic", "one"))
assert a.shape == (512, 64) and np.isfinite(a).all()
for x in (b, c):
    err = np.abs(a - x).max() / np.abs(a).max()
    assert err < 1e-5, err
PY
checks=$((checks + 1))
finish
