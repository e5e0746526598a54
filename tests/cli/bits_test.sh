# attn bits as a user runs it.
. "$(dirname "$0")/lib.sh"

# In a pipe: the bits array alone, as csv; binary width from n - 1.
expect_status 0 "$ATTN" bits -n 5
expect_output "position,binary,bit2,bit1,bit0
0,000,0,0,0
1,001,0,0,1
2,010,0,1,0
3,011,0,1,1
4,100,1,0,0"

# Periods 2^(k+1) beside the wavelengths 2 pi 10000^(2k/4) of a 4-column P.
expect_status 0 "$ATTN" bits -n 4 -d 4 --show periods --dtype float64
expect_output "k,bit_period,wavelength
0,2,6.283185307179586
1,4,628.3185307179587"

# Both arrays where the format holds several.
expect_status 0 "$ATTN" bits -n 4 -d 6 -f json
expect_grep '"bits": \{' "$OUT"
expect_grep '"periods": \{.*"shape": \[3, 2\]' "$OUT"
on_terminal "$ATTN" bits -n 8 >"$OUT" 2>&1
expect_grep '^positions in binary \(8 x 3, int64\)' "$OUT"
expect_grep '^7 +111 +1 +1 +1' "$OUT"
expect_grep '^bit periods' "$OUT"
mkdir "$WORK/out"
expect_status 0 "$ATTN" bits -n 3 -o "$WORK/out/"
[ -s "$WORK/out/bits.csv" ] && [ -s "$WORK/out/periods.csv" ] || fail "-o DIR/ did not write bits.csv and periods.csv"
# An existing directory named without the trailing slash is a directory too.
mkdir "$WORK/out2"
expect_status 0 "$ATTN" bits -n 3 -o "$WORK/out2"
[ -s "$WORK/out2/bits.csv" ] && [ -s "$WORK/out2/periods.csv" ] || fail "-o DIR did not write both arrays"

# The bits are integers: int64 in npy and npz (numpy '<i8'), whatever --dtype says of periods.
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    expect_status 0 "$ATTN" bits -n 6 -d 4 -o "$WORK/b.npz"
    checks=$((checks + 1))
    got=$(/usr/bin/python3 -c 'import numpy, sys
z = numpy.load(sys.argv[1])
print(z["bits"].dtype.str, z["bits"][5].tolist(), z["periods"].dtype.str)' "$WORK/b.npz")
    [ "$got" = "<i8 [1, 0, 1] <f4" ] || fail "bits in npz: got '$got'"
fi

expect_usage_error --positions "$ATTN" bits -n 0
expect_usage_error --positions "$ATTN" bits -n x
expect_usage_error --dim "$ATTN" bits -d 0
expect_usage_error --base "$ATTN" bits --base -2
expect_usage_error --show "$ATTN" bits --show everything
expect_usage_error "holds one array" "$ATTN" bits --show all -f csv
finish
