# attn encode --model with the RoPE scalings transformers defines beyond llama3: yarn with a
# given attention_factor and with mscale / mscale_all_dim (rope_parameters, transformers 5's
# form), longrope's short and long factors (Phi-3's top-level original_max_position_embeddings),
# partial_rotary_factor. Tiny llama checkpoints (tests/support/tiny_checkpoint.py) whose
# config.json carries the keys; every array within 1 ulp of mpmath's (rope_scaling_check.py).
. "$(dirname "$0")/lib.sh"
numpy_or_skip
"$PYTHON" -c 'import mpmath' || fail "/usr/bin/python3 has no mpmath (apt-get install python3-mpmath)"

W=$WORK
TINY=$ATTN_SOURCE_DIR/tests/support/tiny_checkpoint.py
CHECK=$ATTN_SOURCE_DIR/tests/cli/rope_scaling_check.py
ok() { "$@" || fail "$*"; }
# model NAME KEY=JSON...: a llama of head_dim 16, max_position_embeddings 64, with the keys.
model() {
    local name=$1
    shift
    local sets=()
    for kv in "$@"; do sets+=(--set "$kv"); done
    "$PYTHON" "$TINY" llama "$W/$name" --set head_dim=16 "${sets[@]}" >/dev/null ||
        fail "tiny_checkpoint.py $name"
}
# check NAME START N JSON: encode --model's inv_freq, angles, cos, sin against mpmath.
check() {
    ok "$ATTN" encode --model "$W/$1" --start "$2" -n "$3" --show inv_freq,angles,cos,sin \
        --dtype float64 -o "$W/$1-$2.npz"
    ok "$PYTHON" "$CHECK" "$W/$1-$2.npz" "$4"
}

model yarn-af 'rope_scaling={"rope_type": "yarn", "factor": 8.0, "attention_factor": 1.3,
    "original_max_position_embeddings": 16, "beta_fast": 8}'
check yarn-af 0 20 '{"type": "yarn", "d": 16, "base": 10000, "start": 0, "n": 20, "factor": 8,
    "original": 16, "attention_factor": 1.3, "beta_fast": 8}'
check yarn-af 100000 5 '{"type": "yarn", "d": 16, "base": 10000, "start": 100000, "n": 5,
    "factor": 8, "original": 16, "attention_factor": 1.3, "beta_fast": 8}'
expect_status 0 "$ATTN" encode --model "$W/yarn-af" -n 2 --show cos -f md
expect_grep "yarn scaling, factor 8, attention factor 1.3" "$OUT"

# transformers 5: rope_parameters holds rope_theta (its own wins over the top-level one).
model yarn-mscale 'rope_parameters={"rope_type": "yarn", "rope_theta": 50000.0, "factor": 40.0,
    "mscale": 0.707, "mscale_all_dim": 1.0, "original_max_position_embeddings": 16}'
check yarn-mscale 3 9 '{"type": "yarn", "d": 16, "base": 50000, "start": 3, "n": 9,
    "factor": 40, "original": 16, "mscale": 0.707, "mscale_all_dim": 1.0}'
model yarn-untruncated 'rope_parameters={"rope_type": "yarn", "factor": 4.0, "truncate": false}'
check yarn-untruncated 0 4 '{"type": "yarn", "d": 16, "base": 10000, "start": 0, "n": 4,
    "factor": 4, "original": 64, "truncate": false}'

# longrope: F = 64 / 16 = 4, A = sqrt(1 + ln 4 / ln 16); short factors up to 16 positions.
SHORT='[1.0, 1.01, 1.05, 1.1, 1.3, 1.7, 2.2, 3.0]'
LONG='[1.0, 1.2, 1.9, 3.5, 6.0, 11.0, 19.5, 31.25]'
model longrope original_max_position_embeddings=16 \
    "rope_scaling={\"type\": \"longrope\", \"short_factor\": $SHORT, \"long_factor\": $LONG}"
for at in "0 16" "10 7" "2000 3"; do
    set -- $at
    check longrope "$1" "$2" "{\"type\": \"longrope\", \"d\": 16, \"base\": 10000, \"start\": $1,
        \"n\": $2, \"factor\": 4, \"original\": 16, \"short_factor\": $SHORT, \"long_factor\": $LONG}"
done
ok "$PYTHON" -c "
import numpy as np
s, l = np.load('$W/longrope-0.npz')['inv_freq'], np.load('$W/longrope-10.npz')['inv_freq']
assert abs(s[7] / l[7] - 31.25 / 3.0) < 1e-12, (s, l)"

# partial_rotary_factor: d = int(16 x 0.5) = 8 rotated dimensions, inv_freq of 4.
model partial partial_rotary_factor=0.5
ok "$ATTN" encode --model "$W/partial" -n 3 --show inv_freq --dtype float64 -o "$W/partial.npy"
ok "$PYTHON" -c "
import numpy as np
f = np.load('$W/partial.npy')
assert f.shape == (4,) and np.allclose(f, 10000.0 ** (-np.arange(0, 8, 2) / 8.0), rtol=1e-15), f"

# Errors: one line naming the key and what it accepts, exit 2, nothing written.
model short3 "rope_scaling={\"type\": \"longrope\", \"short_factor\": [1, 1, 1], \"long_factor\": $LONG}"
expect_usage_error "rope_scaling.short_factor: 3 numbers; longrope needs d/2 = 8" \
    "$ATTN" encode --model "$W/short3" -n 2
model negative-af 'rope_scaling={"rope_type": "yarn", "factor": 2.0, "attention_factor": -1}'
expect_usage_error "rope_scaling.attention_factor: -1 is not greater than 0" \
    "$ATTN" encode --model "$W/negative-af" -n 2
model nested 'rope_parameters={"full_attention": {"rope_type": "default"},
    "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}'
expect_usage_error "rope_parameters: holds one dictionary per layer type" \
    "$ATTN" encode --model "$W/nested" -n 2
model odd partial_rotary_factor=0.3125
expect_usage_error "partial_rotary_factor: d = int(head_dim 16 x 0.3125) = 5 is not an even number" "$ATTN" encode --model "$W/odd" -n 2
finish
