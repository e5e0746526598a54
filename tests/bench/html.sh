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
# Usage: tests/bench/html.sh [path/to/attn]     Environment: RUNS=5
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ATTN=$(realpath "${1:-$HERE/../../build/release/attn}")
RUNS=${RUNS:-5}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 -c "import numpy as np; np.save('$WORK/x.npy', np.random.default_rng(0).standard_normal((12, 128, 64)).astype(np.float32))"
start=$(date +%s.%N)
"$ATTN" attend --input "$WORK/x.npy" --heads 12 --dq 64 --dv 64 -o "$WORK/gpt2-shape.html"
end=$(date +%s.%N)
echo "attn: wrote $(du -m "$WORK/gpt2-shape.html" | cut -f1) MB in $(echo "$end - $start" | bc) s"
/usr/bin/python3 - "$WORK" "$RUNS" <<'PY'
import statistics, sys, tempfile
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
work, runs = sys.argv[1], int(sys.argv[2])
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
        driver.get("file://" + work + "/gpt2-shape.html")
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
