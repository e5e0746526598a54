# attn complexity as a user runs it: the symbolic table, hand-computed counts, edge sizes,
# sweeps and crossovers, every format, --measure on tiny sizes, and bad input.
. "$(dirname "$0")/lib.sh"

# The symbolic table (d2l 11.6.2; Vaswani et al. Table 1), stable row and column names.
expect_status 0 "$ATTN" complexity
expect_output "layer,complexity,sequential_operations,maximum_path_length
convolution,O(k n d^2),O(1),O(n/k)
dilated_convolution,O(k n d^2),O(1),O(log_k(n))
recurrent,O(n d^2),O(n),O(n)
self_attention,O(n^2 d),O(1),O(1)
restricted_self_attention,O(r n d),O(1),O(n/r)"

# Counts by hand for n = 5, d = 3, k = 2, r = 3:
#   convolution n k d^2 = 90, path ceil(4/(k-1)) = 4, activations n d = 15
#   dilated: 90, path min L with 2^L >= 5 = 3
#   recurrent 2 n d^2 = 90, 5 sequential steps, path n - 1 = 4
#   self-attention 2 n^2 d = 150, path 1, activations n^2 + n d = 40
#   restricted, window [i-1, i+2] clipped: 3+4+4+3+2 = 16 pairs, 2 d 16 = 96,
#   path ceil(4/3) = 2, activations 16 + 15 = 31
expect_status 0 "$ATTN" complexity -n 5 -d 3 -k 2 -r 3
expect_output "layer,complexity,sequential_operations,maximum_path_length,n,d,k,r,multiply_adds,sequential_steps,path_length,activation_floats
convolution,O(k n d^2),O(1),O(n/k),5,3,2,3,90,1,4,15
dilated_convolution,O(k n d^2),O(1),O(log_k(n)),5,3,2,3,90,1,3,15
recurrent,O(n d^2),O(n),O(n),5,3,2,3,90,5,4,15
self_attention,O(n^2 d),O(1),O(1),5,3,2,3,150,1,1,40
restricted_self_attention,O(r n d),O(1),O(n/r),5,3,2,3,96,1,2,31"

# --with-projections adds 4 n d^2 = 180 multiply-adds and 4 n d = 60 floats to attention only.
expect_status 0 "$ATTN" complexity -n 5 -d 3 -k 2 -r 3 --with-projections --no-header
expect_output "convolution,O(k n d^2),O(1),O(n/k),5,3,2,3,90,1,4,15
dilated_convolution,O(k n d^2),O(1),O(log_k(n)),5,3,2,3,90,1,3,15
recurrent,O(n d^2),O(n),O(n),5,3,2,3,90,5,4,15
self_attention,O(n^2 d + n d^2),O(1),O(1),5,3,2,3,330,1,1,100
restricted_self_attention,O(r n d + n d^2),O(1),O(n/r),5,3,2,3,276,1,2,91"

# Edge sizes. n = 1: no pair of positions, every path is 0.
expect_status 0 "$ATTN" complexity -n 1 -d 2 --no-header
expect_output "convolution,O(k n d^2),O(1),O(n/k),1,2,3,2,12,1,0,2
dilated_convolution,O(k n d^2),O(1),O(log_k(n)),1,2,3,2,12,1,0,2
recurrent,O(n d^2),O(n),O(n),1,2,3,2,8,1,0,2
self_attention,O(n^2 d),O(1),O(1),1,2,3,2,4,1,0,3
restricted_self_attention,O(r n d),O(1),O(n/r),1,2,3,2,4,1,0,3"
# k = 1 never connects two positions: path inf (csv), null (json).
expect_status 0 "$ATTN" complexity -n 4 -d 2 -k 1 --no-header
expect_grep '^convolution,.*,4,2,1,2,16,1,inf,8$' "$OUT"
expect_grep '^dilated_convolution,.*,4,2,1,2,16,1,inf,8$' "$OUT"
expect_status 0 "$ATTN" complexity -n 4 -d 2 -k 1 -f json
expect_grep '\["convolution", "O\(k n d\^2\)", "O\(1\)", "O\(n/k\)", 4, 2, 1, 2, 16, 1, null, 8\]' "$OUT"
expect_grep '\["recurrent", "O\(n d\^2\)", "O\(n\)", "O\(n\)", 4, 2, 1, 2, 32, 4, 3, 8\]' "$OUT"
# k >= n: one layer sees everything (path 1), every tap still counted (n k d^2 = 4*9*4).
expect_status 0 "$ATTN" complexity -n 4 -d 2 -k 9 --no-header
expect_grep '^convolution,.*,4,2,9,2,144,1,1,8$' "$OUT"
expect_grep '^dilated_convolution,.*,4,2,9,2,144,1,1,8$' "$OUT"
# r >= n: restricted attention is full attention, n^2 = 16 pairs, 2 d 16 = 64, path 1.
expect_status 0 "$ATTN" complexity -n 4 -d 2 -r 10 --no-header
expect_grep '^restricted_self_attention,.*,4,2,3,10,64,1,1,24$' "$OUT"
expect_grep '^self_attention,.*,4,2,3,10,64,1,1,24$' "$OUT"

# Counts beyond 2^53 print exactly: 2 n^2 d + 4 n d^2 = 20398041191939994 (not ...96).
expect_status 0 "$ATTN" complexity -n 1000003 -d 9999 -k 7 -r 1000 --with-projections --no-header
expect_grep '^self_attention,.*,1000003,9999,7,1000,20398041191939994,1,1,1050001149994$' "$OUT"
expect_status 0 "$ATTN" complexity -n 1000003 -d 9999 --with-projections -f json
expect_grep '\["self_attention", [^]]*, 20398041191939994, 1, 1, 1050001149994\]' "$OUT"

# A sweep: long form, one row per layer per size, in csv nothing else.
expect_status 0 "$ATTN" complexity --sweep n=16:64:x2 -d 8
[ "$(wc -l <"$OUT")" -eq 16 ] || fail "sweep of 3 sizes: want 1 header + 15 rows, got $(wc -l <"$OUT")"
expect_grep '^self_attention,O\(n\^2 d\),O\(1\),O\(1\),64,8,3,2,65536,1,1,4608$' "$OUT"
expect_grep '^recurrent,O\(n d\^2\),O\(n\),O\(n\),32,8,3,2,4096,32,31,256$' "$OUT"
expect_status 0 "$ATTN" complexity --sweep d=2,4 -n 3 --no-header
expect_output "convolution,O(k n d^2),O(1),O(n/k),3,2,3,2,36,1,1,6
dilated_convolution,O(k n d^2),O(1),O(log_k(n)),3,2,3,2,36,1,1,6
recurrent,O(n d^2),O(n),O(n),3,2,3,2,24,3,2,6
self_attention,O(n^2 d),O(1),O(1),3,2,3,2,36,1,1,15
restricted_self_attention,O(r n d),O(1),O(n/r),3,2,3,2,28,1,1,13
convolution,O(k n d^2),O(1),O(n/k),3,4,3,2,144,1,1,12
dilated_convolution,O(k n d^2),O(1),O(log_k(n)),3,4,3,2,144,1,1,12
recurrent,O(n d^2),O(n),O(n),3,4,3,2,96,3,2,12
self_attention,O(n^2 d),O(1),O(1),3,4,3,2,72,1,1,21
restricted_self_attention,O(r n d),O(1),O(n/r),3,4,3,2,56,1,1,19"

# Crossovers (table, md, json, -o DIR/): attention costs more than the recurrent layer for
# n > d, than the convolution for n > k d / 2.
expect_status 0 "$ATTN" complexity --sweep n=16:64:x2 -d 8 -f table
expect_grep '^recurrent +n > d +8 +3 +9$' "$OUT"
expect_grep '^convolution +n > k d / 2 +8 +3 +13$' "$OUT"
expect_grep '^per-layer counts over n \(3 sizes\)$' "$OUT"
expect_status 0 "$ATTN" complexity -n 100 -d 512 -k 5 -f json
expect_grep '"columns": \["versus", "condition", "d", "k", "crossover_n"\]' "$OUT"
expect_grep '\[\["recurrent", "n > d", 512, 5, 513\],' "$OUT"
expect_grep '\["convolution", "n > k d / 2", 512, 5, 1281\]\]' "$OUT"
expect_status 0 "$ATTN" complexity -n 100 -d 512 -k 5 --with-projections -f md
expect_grep '^\| recurrent \| every n \| 512 \| 5 \| 1 \|$' "$OUT"
expect_grep '^\| convolution \| n > \(k - 4\) d / 2 \| 512 \| 5 \| 257 \|$' "$OUT"
mkdir "$WORK/dir"
expect_status 0 "$ATTN" complexity --sweep d=64,128 -n 100 -o "$WORK/dir/"
[ "$(cat "$WORK/dir/crossovers.csv")" = "versus,condition,d,k,crossover_n
recurrent,n > d,64,3,65
convolution,n > k d / 2,64,3,97
recurrent,n > d,128,3,129
convolution,n > k d / 2,128,3,193" ] || fail "crossovers.csv: $(cat "$WORK/dir/crossovers.csv")"
[ -s "$WORK/dir/complexity.csv" ] || fail "-o DIR/ did not write complexity.csv"

# Formats: table (terminal default), csv, json, md (by name and by extension).
on_terminal "$ATTN" complexity >"$OUT" 2>&1
expect_grep '^self_attention +O\(n\^2 d\) +O\(1\) +O\(1\)' "$OUT"
expect_status 0 "$ATTN" complexity -f table -n 5 -d 3 -k 2 -r 3
expect_grep '^per-layer counts, n = 5, d = 3, k = 2, r = 3$' "$OUT"
expect_grep '^restricted_self_attention +O\(r n d\) +O\(1\) +O\(n/r\) +5 +3 +2 +3 +96 +1 +2 +31$' "$OUT"
expect_status 0 "$ATTN" complexity -f json
expect_grep '"columns": \["layer", "complexity", "sequential_operations", "maximum_path_length"\]' "$OUT"
expect_grep '\["self_attention", "O\(n\^2 d\)", "O\(1\)", "O\(1\)"\],' "$OUT"
if /usr/bin/python3 -c 'import json' 2>/dev/null; then
    "$ATTN" complexity -n 5 -d 3 -k 2 -r 3 -f json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
def column(t, name):  # a table as pandas orient="split": columns, then rows of data
    return [row[t["columns"].index(name)] for row in t["data"]]
t = j["complexity"]
assert column(t, "multiply_adds") == [90, 90, 90, 150, 96], column(t, "multiply_adds")
assert column(t, "layer")[4] == "restricted_self_attention"
assert column(j["crossovers"], "crossover_n") == [4, 4]
' || fail "json does not parse or holds the wrong counts"
    checks=$((checks + 1))
fi
expect_status 0 "$ATTN" complexity -f md
expect_output "**cost of one layer: n tokens of width d, kernel k, neighborhood r**

| layer | complexity | sequential_operations | maximum_path_length |
| --- | --- | --- | --- |
| convolution | O(k n d^2) | O(1) | O(n/k) |
| dilated_convolution | O(k n d^2) | O(1) | O(log_k(n)) |
| recurrent | O(n d^2) | O(n) | O(n) |
| self_attention | O(n^2 d) | O(1) | O(1) |
| restricted_self_attention | O(r n d) | O(1) | O(n/r) |"
expect_status 0 "$ATTN" complexity -n 5 -d 3 -o "$WORK/notes.md"
head -1 "$WORK/notes.md" | grep -q '^\*\*per-layer counts, n = 5, d = 3, k = 3, r = 2\*\*$' || fail "notes.md is not markdown"
grep -q '^| --- | --- | --- | --- | ---: |' "$WORK/notes.md" || fail "md: numbers not right-aligned"

# --measure on tiny sizes: positive seconds beside the counts (no timing assertions).
expect_status 0 "$ATTN" complexity -n 8 -d 4 --measure --repeat 3 --no-header
[ "$(wc -l <"$OUT")" -eq 5 ] || fail "--measure: want 5 rows"
awk -F, '!($13 > 0 && $14 >= 0) { bad = 1 } END { exit bad }' "$OUT" ||
    fail "--measure: seconds not positive: $(cat "$OUT")"
# What was timed is what attn runs: the fused attention kernel attend uses, BLAS for the others.
expect_grep '^self_attention,.*,8,4,3,2,512,1,1,96,[0-9.e+-]+,[0-9.e+-]+,fused tiled attention \((avx512|avx2|portable)\)$' "$OUT"
expect_grep '^convolution,.*,im2col \+ sgemm$' "$OUT"
expect_grep '^recurrent,.*,sgemv per step$' "$OUT"
expect_status 0 "$ATTN" complexity -n 8 -d 4 --measure -f csv
expect_grep ',activation_floats,seconds,gflops,kernel$' "$OUT"
# With a sweep: the exponents array, asymptotic beside fitted (counts exactly 1 and 2).
expect_status 0 "$ATTN" complexity --sweep n=8:32:x2 -d 4 --measure --repeat 1 -f table
expect_grep '^exponent of n: ' "$OUT"
expect_grep '^self_attention +n +2 +2 +[0-9.e+-]+$' "$OUT"
expect_grep '^convolution +n +1 +1 +[0-9.e+-]+$' "$OUT"
expect_grep '^layer +variable +asymptotic_exponent +count_exponent +measured_exponent$' "$OUT"

# Bad sizes: exit 2, one line naming the option, nothing on stdout.
expect_usage_error --positions "$ATTN" complexity -n 0 -d 4
expect_usage_error --positions "$ATTN" complexity -n -3 -d 4
expect_usage_error --positions "$ATTN" complexity -n 2.5 -d 4
expect_usage_error --positions "$ATTN" complexity -n abc -d 4
expect_usage_error --dim "$ATTN" complexity -n 4 -d 0
expect_usage_error --dim "$ATTN" complexity -n 4 -d -1
expect_usage_error --kernel "$ATTN" complexity -n 4 -d 4 -k 0
expect_usage_error --kernel "$ATTN" complexity -n 4 -d 4 -k -2
expect_usage_error --neighborhood "$ATTN" complexity -n 4 -d 4 -r 0
expect_usage_error --neighborhood "$ATTN" complexity -n 4 -d 4 -r -1
expect_usage_error --dim "$ATTN" complexity -n 4
expect_usage_error --positions "$ATTN" complexity -d 4
expect_usage_error --positions "$ATTN" complexity -k 5
expect_usage_error --positions "$ATTN" complexity -n 1099511627776 -d 16777216
expect_usage_error --sweep "$ATTN" complexity --sweep n=0:64:x2 -d 4
expect_usage_error --sweep "$ATTN" complexity --sweep n=-4,8 -d 4
expect_usage_error --sweep "$ATTN" complexity --sweep n=64:16:x2 -d 4
expect_usage_error --sweep "$ATTN" complexity --sweep n=16:64:x1 -d 4
expect_usage_error --sweep "$ATTN" complexity --sweep n=16:64 -d 4
expect_usage_error --sweep "$ATTN" complexity --sweep x=1,2 -d 4
expect_usage_error --sweep "$ATTN" complexity --sweep n16 -d 4
expect_usage_error --sweep "$ATTN" complexity --sweep n=1:100000000:+1 -d 4
expect_usage_error --sweep "$ATTN" complexity --sweep n=4,8 -n 4 -d 4
expect_usage_error --sweep "$ATTN" complexity --sweep d=4,33554432 -n 4
expect_usage_error --measure "$ATTN" complexity -n 65536 -d 64 --measure
expect_usage_error --measure "$ATTN" complexity -n 4096 -d 4096 --measure
expect_usage_error --measure "$ATTN" complexity --sweep n=1024:65536:x2 -d 512 --measure
expect_usage_error --measure "$ATTN" complexity -n 20000000 -d 1 --measure --max-memory 64G
expect_usage_error --measure "$ATTN" complexity -n 4 -d 4 --repeat 3
expect_usage_error --repeat "$ATTN" complexity -n 4 -d 4 --measure --repeat 0
expect_usage_error --repeat "$ATTN" complexity -n 4 -d 4 --measure --repeat 1001
expect_usage_error --dtype "$ATTN" complexity -n 4 -d 4 --dtype float32
expect_usage_error --format "$ATTN" complexity -f xlsx

# -f heatmap: the counts have no colours to show and come out as the table.
expect_status 0 "$ATTN" complexity -f heatmap -n 10 -d 4
expect_grep '^self_attention +O\(n\^2 d\) +O\(1\) +O\(1\) +10 +4 +3 +2 +800 ' "$OUT"
expect_grep '^recurrent +n > d +4 +3 +5$' "$OUT"
finish
