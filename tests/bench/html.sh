#!/usr/bin/env bash
# Benchmark (not a test): how fast a -f html page opens at GPT-2 small's shape, 12 x 12 heads
# of 128 tokens (2,359,296 weights). The page comes from a random-model run with the same
# weight shape: `attn attend --input X.npy --heads 12`, X 12 sequences x 128 rows x 64
# (float32), so the weights are 12 x 12 x 128 x 128 with the sequence as the leading axis.
# Headless Chromium (as the test runs it, no network) loads the page from file:// RUNS times
# (default 5) in a fresh tab; reported, median and worst:
#   ready     navigation start -> the head view drawn (window.attnPage.readyMs: the JSON
#             parsed, 128 x 2 token rows laid out, the overview's lines of 12 heads drawn)
#   painted   navigation start -> the load event plus two animation frames (pixels on screen)
#   model     the first click on "Model view": 144 thumbnails of 128 x 128 drawn
#   hover     hovering a query: its lines for 12 heads drawn
# and the page's size and attn's own time to write it.
# Then a checkpoint's page (MODEL_N tokens, default 64, of a GPT-2-small-shaped checkpoint with
# random weights, lib.sh's write_gpt2_small): `--show weights` (the weights alone) against the
# default page (the weights, value_norms for the head view's toggle, the lens table of 12 x
# MODEL_N cells): each page's size, attn's time to write it (median of RUNS), and the ready time
# in Chromium as above; then the time the toggle takes to redraw the head view in value_norms
# (row sums of 12 heads, the overview drawn again). MODEL_N=0 leaves this part out.
# Usage: tests/bench/html.sh [path/to/attn]     Environment: RUNS=5 MODEL_N=64
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ATTN=$(realpath "${1:-$HERE/../../build/release/attn}")
RUNS=${RUNS:-5}
MODEL_N=${MODEL_N:-64}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 -c "import numpy as np; np.save('$WORK/x.npy', np.random.default_rng(0).standard_normal((12, 128, 64)).astype(np.float32))"
start=$(date +%s.%N)
"$ATTN" attend --input "$WORK/x.npy" --heads 12 --dq 64 --dv 64 -o "$WORK/gpt2-shape.html"
end=$(date +%s.%N)
echo "attn: wrote $(du -m "$WORK/gpt2-shape.html" | cut -f1) MB in $(echo "$end - $start" | bc) s"
/usr/bin/python3 - "$WORK" "$RUNS" gpt2-shape.html <<'PY'
import statistics, sys, tempfile
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
work, runs, page = sys.argv[1], int(sys.argv[2]), sys.argv[3]
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--no-first-run",
          "--user-data-dir=" + tempfile.mkdtemp(dir=work), "--window-size=1200,900"]:
    options.add_argument(a)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
times = {"ready": [], "painted": [], "model": [], "hover": []}
try:
    for run in range(runs):
        driver.switch_to.new_window("tab")
        driver.get("file://" + work + "/" + page)
        times["ready"].append(driver.execute_script("return window.attnPage.readyMs"))
        times["painted"].append(driver.execute_async_script(
            "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() =>"
            " done(performance.now())))"))
        q = driver.find_element(By.CSS_SELECTOR, "text.token.query[data-index='64']")
        times["hover"].append(driver.execute_script(
            "const t = performance.now(); arguments[0].dispatchEvent(new MouseEvent('mouseover',"
            " {bubbles: true})); return performance.now() - t", q))
        times["model"].append(driver.execute_script(
            "const t = performance.now(); document.getElementById('tab-model').click();"
            " return performance.now() - t"))
        assert len(driver.find_elements(By.CSS_SELECTOR, "#model-grid canvas")) == 144
finally:
    driver.quit()
for name, t in times.items():
    print(f"{name:8} median {statistics.median(t):7.0f} ms   worst {max(t):7.0f} ms   ({runs} runs)")
PY

[ "$MODEL_N" -gt 0 ] || exit 0
source "$HERE/lib.sh"
mkdir "$WORK/gpt2"
write_gpt2_small "$WORK/gpt2"
IDS=$(/usr/bin/python3 -c "import numpy as np; print(','.join(map(str, np.random.default_rng(1).integers(0, 50257, $MODEL_N))))")
for show in weights default; do
    args=()
    [ "$show" = default ] || args=(--show "$show")
    for _ in $(seq "$RUNS"); do
        start=$(date +%s.%N)
        "$ATTN" attend --model "$WORK/gpt2" --ids "$IDS" "${args[@]}" -o "$WORK/model-$show.html"
        end=$(date +%s.%N)
        echo "$end - $start" | bc
    done | median >"$WORK/t"
    echo "model page, $MODEL_N tokens, --show $show: $(stat -c %s "$WORK/model-$show.html") bytes," \
        "written in $(cat "$WORK/t") s (median of $RUNS)"
done
/usr/bin/python3 - "$WORK" "$RUNS" <<'PY'
import statistics, sys, tempfile
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
work, runs = sys.argv[1], int(sys.argv[2])
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--no-first-run",
          "--user-data-dir=" + tempfile.mkdtemp(dir=work), "--window-size=1200,900"]:
    options.add_argument(a)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
times = {"weights ready": [], "default ready": [], "toggle": []}
try:
    for run in range(runs):
        for show in ["weights", "default"]:
            driver.switch_to.new_window("tab")
            driver.get(f"file://{work}/model-{show}.html")
            times[show + " ready"].append(driver.execute_script("return window.attnPage.readyMs"))
        times["toggle"].append(driver.execute_script(
            "const t = performance.now(); window.attnPage.drawValues(0);"
            " return performance.now() - t"))
        assert len(driver.find_elements("css selector", "table.cells td")) > 0
finally:
    driver.quit()
for name, t in times.items():
    print(f"{name:14} median {statistics.median(t):7.0f} ms   worst {max(t):7.0f} ms   ({runs} runs)")
PY
