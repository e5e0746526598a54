"""The -f html page in a real browser (Debian's chromium and chromedriver, python3-selenium).

    html_browser.py ATTN WORKDIR [--pictures DIR] [--models DIR]

Makes pages with ATTN, opens each from file:// in headless Chromium (no network: its own
background connections are off) and checks, against `attn attend --show weights -f json` of
the same command: the weights the page holds, one text element per token with query row i and
key row i at the same height, hovering a query draws its strongest line to the row's argmax
key, a click keeps the focus, a toggled-off head draws nothing, a causal page draws no line to
a later key, the model view's click opens that head; no request but the page itself and no
console message. Screenshots of the head view and the model view are checked not blank (and
kept in DIR when given: the README's share/pictures/page-head.png and page-model.png).
With --models (tests/data/models): a model's page (attend --model), whose toggle draws
value_norms (each row as fractions of its sum) in place of the weights, checked against
`--show value_norms` in npz, and whose lens table's cells are `--show lens --top 1` in csv; a
model without a lens (BERT without its MLM head) gets a page without the table.
Prints one line per failed check; exits 1 when any failed.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_pixel import read_png  # noqa: E402

ATTN, WORK = sys.argv[1], sys.argv[2]
PICTURES = sys.argv[sys.argv.index("--pictures") + 1] if "--pictures" in sys.argv else None
MODELS = sys.argv[sys.argv.index("--models") + 1] if "--models" in sys.argv else None
SENTENCE = "Life is short, eat dessert first"
failures, checks = [], 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def attn(*args, stdout=None):
    return subprocess.run([ATTN, *args], check=True, stdout=stdout or subprocess.PIPE).stdout


def page_and_weights(name, *args):
    """Writes NAME.html; returns its path and the json weights as [layer][head][query][key]."""
    path = os.path.join(WORK, name + ".html")
    attn("attend", *args, "-o", path)
    w = json.loads(attn("attend", *args, "--show", "weights", "-f", "json"))["weights"]
    data = np.array(w["data"], dtype=np.float64)
    data = data.reshape((1,) * (4 - data.ndim) + data.shape)
    return path, data, w


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    profile = tempfile.mkdtemp(dir=WORK, prefix="chromium-")
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--no-first-run", "--user-data-dir=" + profile, "--window-size=1100,800"]:
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def open_page(driver, path):
    driver.get("file://" + path)
    driver.get_log("performance")  # the navigation's events; checked by checked_quiet()
    return driver.execute_script("return window.attnPage.data")


def checked_quiet(driver, path, events):
    """No request but the page, no resource entry, no console message."""
    urls = []
    for entry in events:
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    check(all(u == "file://" + path for u in urls), f"{path}: requests {urls}")
    resources = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)")
    check(resources == [], f"{path}: resources fetched {resources}")
    console = driver.get_log("browser")
    check(console == [], f"{path}: console {console}")


def lines(driver, selector):
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => ({"
        " head: +e.dataset.head, query: +e.dataset.query, key: +e.dataset.key,"
        " weight: +e.dataset.weight, y1: +e.getAttribute('y1'), y2: +e.getAttribute('y2'),"
        " d: e.getAttribute('d'), shown: e.getClientRects().length > 0}))", selector)


def token_y(driver, side, i):
    return driver.execute_script(
        "const r = document.querySelector(`text.token.${arguments[0]}[data-index='${arguments[1]}']`)"
        ".getBoundingClientRect(); return (r.top + r.bottom) / 2", side, i)


def hover(driver, i):
    q = driver.find_element(By.CSS_SELECTOR, f"text.token.query[data-index='{i}']")
    ActionChains(driver).move_to_element(q).perform()


def segments(d):
    """An overview path's lines as (y1, y2): "Mx y1Lx y2" repeated."""
    out = []
    for part in d.split("M")[1:]:
        a, b = part.split("L")
        out.append((float(a.split()[1]), float(b.split()[1])))
    return out


def screenshot(driver, name):
    """The page's body as a PNG, checked not blank: many colours, many coloured pixels."""
    shot = os.path.join(WORK, name)
    driver.find_element(By.TAG_NAME, "body").screenshot(shot)
    width, height, bpp, rows = read_png(shot)
    pixels = {bytes(r[x * bpp:x * bpp + 3]) for r in rows[::2] for x in range(0, width, 2)}
    coloured = sum(1 for r in rows[::2] for x in range(0, width, 2)
                   if len(set(r[x * bpp:x * bpp + 3])) > 1)
    check(len(pixels) > 50 and coloured > 200,
          f"{name} {width} x {height}: {len(pixels)} colours, {coloured} coloured pixels")
    if PICTURES:
        os.replace(shot, os.path.join(PICTURES, name))


def head_view_checks(driver, path, w, tokens, causal):
    L, H, n, _ = w.shape
    held = np.array(driver.execute_script("return window.attnPage.data.weights"), dtype=float)
    check(held.shape == w.shape and np.array_equal(held, w),
          f"{path}: the page's weights differ from --show weights -f json")
    texts = driver.execute_script(
        "return ['query', 'key'].map(s => [...document.querySelectorAll(`text.token.${s}`)]"
        ".map(t => t.textContent))")
    check(texts == [tokens, tokens], f"{path}: token elements {texts}, want {tokens}")
    for i in range(n):
        check(abs(token_y(driver, "query", i) - token_y(driver, "key", i)) < 0.5,
              f"{path}: query {i} and key {i} at different heights")
    layer = driver.execute_script("return window.attnPage.state.layer")
    overview = lines(driver, "#overview path")
    check(overview and {p["head"] for p in overview} == set(range(H)),
          f"{path}: overview paths of heads {sorted({p['head'] for p in overview})}")
    if causal:
        later = [s for p in overview for s in segments(p["d"]) if s[1] > s[0] + 1e-9]
        check(not later, f"{path}: overview lines to later keys {later[:3]}")
    for i in range(n):
        hover(driver, i)
        focus = lines(driver, "line.focus")
        check(all(not p["shown"] for p in lines(driver, "#overview path")),
              f"{path}: other queries' lines shown while query {i} is focused")
        for h in range(H):
            row = w[layer, h, i]
            mine = [f for f in focus if f["head"] == h]
            check(all(f["query"] == i for f in mine), f"{path}: lines of another query")
            check(len(mine) == np.count_nonzero(row),
                  f"{path}: head {h} query {i}: {len(mine)} lines, {np.count_nonzero(row)} weights")
            if not mine:
                continue
            strongest = max(mine, key=lambda f: f["weight"])
            check(strongest["key"] == int(np.argmax(row)) and strongest["weight"] == row.max(),
                  f"{path}: head {h} query {i}: strongest line to {strongest['key']}, "
                  f"argmax {int(np.argmax(row))}")
            check(abs(strongest["y2"] - driver.execute_script(
                "return +document.querySelector(`text.token.key[data-index='${arguments[0]}']`)"
                ".getAttribute('y')", strongest["key"])) < 10,  # inside the key's row of 20
                f"{path}: head {h} query {i}: the line does not end at its key")
            if causal:
                check(all(f["key"] <= i for f in mine), f"{path}: query {i} sees a later key")


def test_sentence(driver):
    path, w, raw = page_and_weights("causal", SENTENCE, "--heads", "4", "--causal")
    open_page(driver, path)
    checked_quiet(driver, path, driver.get_log("performance"))
    tokens = raw["columns"]
    check(tokens == SENTENCE.replace(",", "").split(), f"tokens {tokens}")
    check(driver.title.startswith("attention weights"), f"title {driver.title!r}")
    check(not driver.find_element(By.ID, "layer-select").is_displayed(),
          "a layer selector on a one-layer page")
    head_view_checks(driver, path, w, tokens, causal=True)

    # A click keeps the focus when the pointer leaves; a second click lets go.
    q2 = driver.find_element(By.CSS_SELECTOR, "text.token.query[data-index='2']")
    q2.click()
    ActionChains(driver).move_to_element(driver.find_element(By.ID, "title")).perform()
    kept = lines(driver, "line.focus")
    check(kept and all(f["query"] == 2 for f in kept), "the clicked query's lines are gone")
    q2.click()
    ActionChains(driver).move_to_element(driver.find_element(By.ID, "title")).perform()
    check(lines(driver, "line.focus") == [], "the focus stays after a second click")

    # A toggled-off head draws nothing, in the overview and when a query is focused.
    driver.find_element(By.CSS_SELECTOR, ".head-toggle[data-head='1']").click()
    hover(driver, 5)
    drawn = {f["head"] for f in lines(driver, "line.focus")}
    drawn |= {p["head"] for p in lines(driver, "#overview path")}
    check(drawn == {0, 2, 3}, f"heads drawn with head 1 off: {sorted(drawn)}")
    check(driver.find_elements(By.CSS_SELECTOR, "#head-svg [data-head='1']") == [],
          "elements of head 1 remain")
    driver.find_element(By.CSS_SELECTOR, ".head-toggle[data-head='1']").click()
    hover(driver, 5)
    check({f["head"] for f in lines(driver, "line.focus")} == {0, 1, 2, 3},
          "head 1 is not back")

    # The screenshot: a query kept in focus, every head shown.
    driver.find_element(By.CSS_SELECTOR, "text.token.query[data-index='4']").click()
    screenshot(driver, "page-head.png")


def test_layers(driver):
    """A 4-d page (3 sequences of --input rows, 2 heads): the selector and the model view."""
    rows = os.path.join(WORK, "rows.npy")
    np.save(rows, np.random.default_rng(7).standard_normal((3, 5, 8)).astype(np.float32))
    path, w, raw = page_and_weights("layers", "--input", rows, "--heads", "2", "--dq", "4")
    data = open_page(driver, path)
    checked_quiet(driver, path, driver.get_log("performance"))
    check(data["layers"] == [0, 1, 2] and data["heads"] == [0, 1], f"axes {data['layers']}")
    check(driver.find_element(By.ID, "layer-select").is_displayed(), "no layer selector")
    head_view_checks(driver, path, w, [str(i) for i in range(5)], causal=False)
    driver.find_element(By.ID, "tab-model").click()
    thumbs = driver.find_elements(By.CSS_SELECTOR, "#model-grid canvas")
    check(len(thumbs) == 6, f"{len(thumbs)} thumbnails, want 3 x 2")
    screenshot(driver, "page-model.png")
    # Thumbnail (2, 1): the argmax cell of row 0 is the darkest of the row.
    pixel = driver.execute_script(
        "const c = document.querySelector(\"canvas[data-layer='2'][data-head='1']\");"
        "return [...c.getContext('2d').getImageData(0, 0, c.width, 1).data]")
    sums = [sum(pixel[4 * j:4 * j + 3]) for j in range(5)]
    check(int(np.argmin(sums)) == int(np.argmax(w[2, 1, 0])), f"thumbnail row 0 {sums}")
    driver.find_element(By.CSS_SELECTOR, "canvas[data-layer='2'][data-head='1']").click()
    check(driver.find_element(By.ID, "head-view").is_displayed() and
          not driver.find_element(By.ID, "model-view").is_displayed(), "the head view is not open")
    check(driver.find_element(By.ID, "layer-select").get_attribute("value") == "2",
          "the layer selector is not on layer 2")
    pressed = [b.get_attribute("aria-pressed") for b in
               driver.find_elements(By.CSS_SELECTOR, ".head-toggle")]
    check(pressed == ["false", "true"], f"head toggles {pressed} after opening head 1")
    hover(driver, 3)
    focus = lines(driver, "line.focus")
    check(focus and {f["head"] for f in focus} == {1}, "lines of other heads than 1")
    strongest = max(focus, key=lambda f: f["weight"])
    check(strongest["key"] == int(np.argmax(w[2, 1, 3])), "layer 2's argmax is not drawn")
    check(driver.get_log("browser") == [], "console messages")


def focus_values(driver, path, head, query):
    """The focused query's drawn values of one head by key, read from its lines' data-weight,
    and the numbers written beside the keys (one head shown)."""
    hover(driver, query)
    drawn = {f["key"]: f["weight"] for f in lines(driver, "line.focus") if f["head"] == head}
    texts = driver.execute_script(
        "return [...document.querySelectorAll('#head-svg text.weight')].map(t => t.textContent)")
    return drawn, texts


def test_model(driver):
    """attend --model's page: the value_norms toggle and the lens table."""
    model, text = os.path.join(MODELS, "induction"), "ABqwertABqwert"
    path = os.path.join(WORK, "model.html")
    attn("attend", "--model", model, text, "-o", path)
    w = np.array(json.loads(attn("attend", "--model", model, text, "--show", "weights", "-f",
                                 "json"))["weights"]["data"])
    npz = os.path.join(WORK, "value_norms.npz")
    attn("attend", "--model", model, text, "--show", "value_norms", "-o", npz)
    vn = np.load(npz)["value_norms"].astype(np.float64)
    lens = attn("attend", "--model", model, text, "--show", "lens", "--top", "1", "-f",
                "csv").decode().splitlines()
    # the page's own run: value vectors kept change the float32 forward's path (the direct
    # kernel), so the same arrays in json give the page's numbers exactly
    same = json.loads(attn("attend", "--model", model, text, "--show",
                           "weights,value_norms,lens", "--top", "1", "-f", "json"))["lens"]
    data = open_page(driver, path)
    checked_quiet(driver, path, driver.get_log("performance"))
    L, H, n, _ = w.shape
    check(vn.shape == w.shape, f"value_norms {vn.shape}, weights {w.shape}")
    kinds = [(e["kind"], e["name"]) for e in data.get("extras", [])]
    check(kinds == [("view", "value_norms"), ("table", "lens")], f"{path}: extras {kinds}")
    buttons = driver.find_elements(By.CSS_SELECTOR, ".value-toggle")
    check([b.text for b in buttons] == ["weights", "value_norms"] and buttons[0].is_displayed(),
          f"{path}: value toggles {[b.text for b in buttons]}")

    # one head shown, layer 1: the focused query's lines and numbers, before and after
    layer, head, query = 1, 1, n - 2
    driver.execute_script("window.attnPage.openHead(arguments[0], arguments[1])", layer, head)
    shown = vn[layer, head, query] / vn[layer, head, query].sum()
    for name, want in [("weights", w[layer, head, query]), ("value_norms", shown),
                       ("weights", w[layer, head, query])]:
        view = -1 if name == "weights" else 0
        driver.find_element(By.CSS_SELECTOR, f".value-toggle[data-view='{view}']").click()
        drawn, texts = focus_values(driver, path, head, query)
        got = np.array([drawn.get(j, 0.0) for j in range(n)])
        check(np.allclose(got, want, rtol=1e-6, atol=1e-7),
              f"{path}: {name}: query {query} draws {got}, want {want}")
        numbers = [f"{v:.3f}" for v in want]
        check(texts == numbers, f"{path}: {name}: beside the keys {texts}, want {numbers}")
    check(not np.allclose(shown, w[layer, head, query], atol=1e-3),
          "value_norms draws what the weights draw: the check cannot tell them apart")
    # the model view follows the toggle: row `query` of thumbnail (layer, head) is darkest
    # at the view's largest value
    driver.find_element(By.CSS_SELECTOR, ".value-toggle[data-view='0']").click()
    driver.find_element(By.ID, "tab-model").click()
    pixel = driver.execute_script(
        "const c = document.querySelector("
        "`canvas[data-layer='${arguments[0]}'][data-head='${arguments[1]}']`);"
        "return [...c.getContext('2d').getImageData(0, arguments[2], c.width, 1).data]",
        layer, head, query)
    sums = [sum(pixel[4 * j:4 * j + 3]) for j in range(n)]
    check(int(np.argmin(sums)) == int(np.argmax(shown)), f"value_norms thumbnail row {sums}")
    driver.find_element(By.ID, "tab-head").click()

    # the lens table: layers x positions, each cell lens's top token and its probability
    header, rows = lens[0].split(","), [r.split(",") for r in lens[1:]]
    check(header == ["layer", "position", "rank", "id", "token", "probability"], f"lens {header}")
    cells = driver.execute_script(
        "return [...document.querySelectorAll('table.cells td')].map(c => [+c.dataset.row,"
        " +c.dataset.column, c.querySelector('.text').textContent, +c.dataset.value,"
        " c.getClientRects().length > 0])")
    check(len(cells) == L * n == len(rows) == len(same["data"]),
          f"{len(cells)} lens cells, {len(rows)} csv rows, {len(same['data'])} json rows")
    for (k, p, token, value, visible), row, exact in zip(cells, rows, same["data"]):
        check([k, p] == [int(row[0]), int(row[1])] and token == row[4] and visible and
              abs(value - float(row[5])) <= 1e-6,
              f"{path}: lens cell ({k}, {p}) = {token!r} {value}, csv {row}")
        check([k, p, 1, token, value] == exact[:3] + exact[4:],
              f"{path}: lens cell ({k}, {p}) = {token!r} {value}, json {exact}")
    heads = driver.execute_script(
        "return [...document.querySelectorAll('table.cells th.token')].map(t => t.textContent)")
    check(heads == list(text), f"{path}: the lens table's columns {heads}")
    check(driver.get_log("browser") == [], "console messages")

    # BERT without its MLM head: no lens, a page without the table; with it, the table
    for name, table in [("bert", False), ("bert-mlm", True)]:
        page = os.path.join(WORK, name + ".html")
        attn("attend", "--model", os.path.join(MODELS, name), "--ids", "2,10,11,3", "-o", page)
        data = open_page(driver, page)
        checked_quiet(driver, page, driver.get_log("performance"))
        kinds = sorted(e["kind"] for e in data.get("extras", []))
        check(kinds == (["table", "view"] if table else ["view"]), f"{page}: extras {kinds}")
        count = len(driver.find_elements(By.CSS_SELECTOR, "table.cells"))
        check(count == int(table), f"{page}: {count} tables")


driver = browser()
try:
    test_sentence(driver)
    test_layers(driver)
    if MODELS:
        test_model(driver)
finally:
    driver.quit()
print(f"{checks} browser checks, {len(failures)} failed")
sys.exit(1 if failures else 0)
