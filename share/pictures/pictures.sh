# The README's pictures, made by attn itself: bash pictures.sh ATTN OUTDIR
# Run by `cmake --build build/release --target pictures` (into share/pictures) and by the
# test cli.pictures (into a scratch directory, compared byte for byte with these files).
set -eu
attn=$1
out=$2
"$attn" encode -n 60 -d 32 -o "$out/P.svg"
"$attn" encode -n 60 -d 32 --cmap blues -o "$out/P-blues.svg"
"$attn" encode -n 60 -d 32 --columns 6:10 --plot lines -o "$out/P-columns.svg"
"$attn" bits -n 8 -o "$out/bits.svg"
"$attn" attend "Life is short, eat dessert first" --show weights -o "$out/weights.svg"
"$attn" attend "Life is short, eat dessert first" --show weights --causal -o "$out/weights-causal.svg"
"$attn" attend "Life is short, eat dessert first" --heads 4 --show weights -o "$out/weights-heads.svg"
"$attn" complexity -o "$out/complexity.svg"
"$attn" encode --scheme alibi -n 12 -o "$out/alibi-bias.svg"
"$attn" encode --scheme t5 -n 160 --cmap viridis -o "$out/t5-buckets.svg"
"$attn" attend "Life is short, eat dessert first" --scheme sinusoidal --permute reverse --show equivariance -o "$out/equivariance-sinusoidal.svg"
"$attn" rotate -n 100 -d 128 --positions-up-to 1e6 --dtype bfloat16 -o "$out/rotate-bfloat16.svg"
# The trained two-layer model (tests/data/models/induction) on what it was trained on: capitals
# (ABAB), a segment of distinct lower-case letters, capitals, the segment again.
model=$(dirname "$0")/../../tests/data/models/induction
text="<|endoftext|>XKXKqmwhzrtDLDLqmwhzrt"
"$attn" attend --model "$model" "$text" -o "$out/induction-grid.svg"
"$attn" attend --model "$model" "$text" --show head_stats -o "$out/induction-head-stats.svg"
"$attn" attend --model "$model" "$text" --show offsets -o "$out/induction-offsets.svg"
"$attn" attend --model "$model" "$text" --show lens_next -o "$out/induction-lens-next.svg"
# The positional profile that ALiBi imposes, for comparison (the random model, 8 heads).
"$attn" attend "Life is short, eat dessert first and then eat more dessert" --heads 8 \
    --scheme alibi --causal --show offsets -o "$out/offsets-alibi.svg"
