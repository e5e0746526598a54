# -f html as a user runs it: the page's limits and refusals, a file that references nothing
# outside itself, the data equal to -f json, and the page in a real browser (html_browser.py:
# Chromium headless, driven by selenium).
. "$(dirname "$0")/lib.sh"
PYTHON=/usr/bin/python3
for tool in chromium chromedriver; do
    if ! command -v "$tool" >/dev/null; then
        echo "skipped: $tool is not installed (Debian: chromium chromium-driver)" >&2
        exit 77
    fi
done
if ! "$PYTHON" -c 'import numpy, selenium' 2>/dev/null; then
    echo "skipped: /usr/bin/python3 with numpy and selenium is not installed" >&2
    exit 77
fi
S="Life is short, eat dessert first"

# An .html output is a page; -f html too; the page starts as HTML does.
expect_status 0 "$ATTN" attend "$S" --heads 2 -o "$WORK/p.html"
checks=$((checks + 1))
head -1 "$WORK/p.html" | grep -qx '<!DOCTYPE html>' || fail "p.html does not start with a doctype"
expect_status 0 "$ATTN" attend "$S" --heads 2 -f html
checks=$((checks + 1))
cmp -s "$OUT" "$WORK/p.html" || fail "-f html differs from -o p.html"

# The data: the JSON of #attn-data parses, and its weights, tokens and axes are -f json's.
"$ATTN" attend "$S" --heads 2 --causal --dtype float64 -o "$WORK/c.html"
"$ATTN" attend "$S" --heads 2 --causal --dtype float64 --show weights -f json >"$WORK/c.json"
checks=$((checks + 1))
"$PYTHON" - "$WORK/c.html" "$WORK/c.json" <<'PY' || fail "the page's data differs from -f json"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
found = re.findall(r'<script type="application/json" id="attn-data">(.*?)</script>', page, re.S)
assert len(found) == 1, "one data element"
data = json.loads(found[0])
want = json.load(open(sys.argv[2]))["weights"]
assert data["weights"] == [want["data"]], "weights"
assert data["tokens"] == want["columns"] == ["Life", "is", "short", "eat", "dessert", "first"]
assert data["layers"] == [0] and data["heads"] == [0, 1] and data["axes"] == ["layer", "head"]
# causal: row i masks the keys i+1..n-1 in every head
assert data["masked"] == [[[i + 1, 6]] if i < 5 else [] for h in range(2) for i in range(6)]
PY

# Nothing outside the file: no src=, no href= but to a fragment, no @import, no url().
checks=$((checks + 1))
"$PYTHON" - "$WORK/c.html" <<'PY' || fail "the page references another resource"
import html.parser, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
class Refs(html.parser.HTMLParser):
    bad = []
    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "srcset", "data", "poster", "action", "formaction", "background") \
                    or (name in ("href", "xlink:href") and not (value or "").startswith("#")):
                self.bad.append((tag, name, value))
        if tag in ("link", "iframe", "embed", "object", "img", "base"):
            self.bad.append((tag,))
Refs().feed(page)
bad = Refs.bad + re.findall(r"@import|url\s*\(|\bfetch\s*\(|XMLHttpRequest|https?://(?!www\.w3\.org/2000/svg\")", page)
if bad:
    sys.exit(f"references: {bad[:5]}")
PY

# A token that would end the script element stays inside the JSON.
printf 'x </script><b>bold</b> y\n' >"$WORK/words.txt"
expect_status 0 "$ATTN" attend "</script> &amp; \"q\"" -f html
checks=$((checks + 1))
"$PYTHON" - "$OUT" <<'PY' || fail "a token breaks the page's data"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(re.search(r'id="attn-data">(.*?)</script>', page, re.S).group(1))
assert data["tokens"] == ["</script>", "&amp;", '"q"'], data["tokens"]
PY

# Limits and refusals: exit 2, one line naming the limit or the option, nothing written.
long=$(seq 1 513 | sed 's/^/w/' | tr '\n' ' ')
expect_usage_error "at most 512" "$ATTN" attend "$long" -f html
expect_status 0 "$ATTN" attend "$(seq 1 512 | sed 's/^/w/' | tr '\n' ' ')" -f html -o "$WORK/512.html"
expect_usage_error "--layer and --head" "$ATTN" attend "$(seq 1 300 | tr '\n' ' ')" --heads 200 --dq 1 --dv 1 -f html
expect_status 2 "$ATTN" attend "$long" -o "$WORK/no.html"
checks=$((checks + 1))
[ ! -e "$WORK/no.html" ] || fail "a refused page left $WORK/no.html"
expect_usage_error "--show" "$ATTN" attend "$S" --show context -f html
expect_usage_error "--show" "$ATTN" attend "$S" --show all -o "$WORK/all.html"
expect_usage_error "--query" "$ATTN" attend "$S" --query 1 -f html
printf 'a b\nc d\n' >"$WORK/two.txt"
expect_usage_error "SENTENCE" "$ATTN" attend -f html <"$WORK/two.txt"
expect_usage_error "html: draws every query against every key" "$ATTN" encode -n 4 -d 6 -f html
expect_status 0 "$ATTN" attend "$S" --show weights -f html

# attend --model's page: weights, then value_norms (the toggle) and lens (the table) as the
# data's extras; only those; the lens asked for on a model without one exits 2 as elsewhere.
M=$ATTN_TEST_DATA/models
expect_status 0 "$ATTN" attend --model "$M/gpt2" --ids 46,68,50,65 --show weights -f html
checks=$((checks + 1))
grep -q '^"extras": \[' "$OUT" && fail "--show weights -f html: a page with extras"
expect_status 0 "$ATTN" attend --model "$M/gpt2" --ids 46,68,50,65 --show weights,lens -f html
checks=$((checks + 1))
"$PYTHON" - "$OUT" <<'PY' || fail "--show weights,lens: the page's extras"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(re.search(r'id="attn-data">(.*?)</script>', page, re.S).group(1))
assert [(e["kind"], e["name"]) for e in data["extras"]] == [("table", "lens")], data["extras"]
t = data["extras"][0]
assert t["rows"] == [0, 1, 2] and len(t["texts"]) == 3 and len(t["values"][0]) == 4, t
PY
expect_usage_error "--show" "$ATTN" attend --model "$M/gpt2" --ids 46,68 --show weights,context -f html
expect_usage_error "--show" "$ATTN" attend --model "$M/gpt2" --ids 46,68 --show lens,weights -f html
expect_usage_error "--top" "$ATTN" attend --model "$M/gpt2" --ids 46,68 --top 3 -f html
expect_usage_error "--position" "$ATTN" attend --model "$M/gpt2" --ids 46,68 --position 1 -f html
mkdir "$WORK/pages"  # -o DIR/: a page per array, the weights by default
expect_status 0 "$ATTN" attend --model "$M/gpt2" --ids 46,68,50,65 -f html -o "$WORK/pages/"
checks=$((checks + 1))
[ "$(ls "$WORK/pages")" = weights.html ] || fail "-f html -o DIR/: $(ls "$WORK/pages")"
expect_status 2 "$ATTN" attend --model "$M/bert" --ids 2,10,11,3 --show weights,lens -f html
expect_grep "cls.predictions" "$ERR"
[ ! -s "$OUT" ] || fail "bert weights,lens -f html: wrote to stdout"

# The browser: hover, click, toggles, the model view, no request, no console message.
checks=$((checks + 1))
"$PYTHON" "$(dirname "$0")/html_browser.py" "$ATTN" "$WORK" --models "$ATTN_TEST_DATA/models" ||
    fail "html_browser.py failed"
finish
