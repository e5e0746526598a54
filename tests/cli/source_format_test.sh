# The sources are formatted as .clang-format says (skipped where clang-format is missing).
. "$(dirname "$0")/lib.sh"
if ! command -v clang-format >/dev/null; then
    echo "skipped: clang-format is not installed" >&2
    exit 77
fi
cd "$ATTN_SOURCE_DIR" || exit 1
for f in $(find src tests -name '*.cpp' -o -name '*.hpp' -o -name '*.inc' | sort); do
    checks=$((checks + 1))
    clang-format --dry-run --Werror "$f" 2>/dev/null || fail "$f is not clang-formatted (clang-format -i $f)"
done
finish
