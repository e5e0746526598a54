/* attn's attention page: the head view and the model view of the weights in #attn-data,
     {"tokens": [n], "layers": [L], "heads": [H], "axes": [layer name, head name],
      "weights": [L][H][n][n], "masked": [L x H x n rows of [from, to) key runs] (optional)}.
   Head view: query tokens left, key tokens right, row i of both at the same height; head h's
   lines are shifted (h - (H - 1) / 2) x at most 3 pixels within the row. With no
   query focused, every weight w > 0 of the shown heads is a line at opacity w rounded to 1/100
   (one SVG path per head and opacity level, so that 12 heads of 128 tokens stay fast; weights
   under 0.005 are not drawn, nor the faintest levels beyond 300,000 lines). A focused query (hover, or click to keep it) hides those and
   draws one SVG line per head and key with opacity w and width 2 + 4 w, for every w > 0.
   Masked keys and weights of 0 get no line. Model view: one canvas per layer and head, white 0 to the head's
   colour 1, masked keys grey; a click opens that head in the head view.
   Views ("extras" of kind "view", html.hpp): other values of the same matrices; buttons beside
   the head toggles draw them in place of the weights, in both views (scale "row_sum": each
   value's fraction of its row's sum, null and negative values as 0). */
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("attn-data").textContent);
  const tokens = data.tokens;
  const n = tokens.length;
  const L = data.layers.length;
  const H = data.heads.length;
  const axes = data.axes || ["layer", "head"];
  let W = data.weights;  // what is drawn: the weights or a view's (scaled) values
  const views = (data.extras || []).filter((e) => e.kind === "view");
  const ROW = 20;      // pixels per token row
  const TOP = 28;      // room for the column titles
  const SPAN = 280;    // horizontal length of a line
  const LEVELS = 100;  // opacity levels of the overview

  // One colour per head: Tableau 10 up to 10 heads, else hues evenly around the circle.
  const TABLEAU = [[78, 121, 167], [242, 142, 43], [225, 87, 89], [118, 183, 178],
                   [89, 161, 79], [237, 201, 72], [176, 122, 161], [255, 157, 167],
                   [156, 117, 95], [186, 176, 172]];
  function hsl(h, s, l) {  // h, s, l in 0..1 -> [r, g, b] in 0..255
    const a = s * Math.min(l, 1 - l);
    const f = (k) => {
      const t = (k + h * 12) % 12;
      return Math.round(255 * (l - a * Math.max(-1, Math.min(t - 3, 9 - t, 1))));
    };
    return [f(0), f(8), f(4)];
  }
  const colours = [];
  for (let h = 0; h < H; h++) colours.push(H <= 10 ? TABLEAU[h] : hsl(h / H, 0.7, 0.42));
  const rgb = (c) => "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")";

  const state = {
    view: "head",
    layer: 0,
    shown: new Array(H).fill(true),
    focus: null,    // the focused query, or null
    pinned: false,  // a click keeps the focus until the next click or Esc
    values: -1,     // the view drawn: -1 the weights, else an index into views
  };

  // The masked keys of row (l, h, i) as a Uint8Array(n), or null when none is masked.
  function maskOf(l, h, i) {
    if (!data.masked) return null;
    const runs = data.masked[(l * H + h) * n + i];
    if (!runs || runs.length === 0) return null;
    const m = new Uint8Array(n);
    for (const [from, to] of runs) m.fill(1, from, to);
    return m;
  }
  // A line is drawn for w > 0 (null, NaN and 0 are not) on a key that is not masked.
  const drawn = (w, mask, j) => w > 0 && !(mask && mask[j]);

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function clear(e) {
    while (e.firstChild) e.removeChild(e.firstChild);
  }

  // ---- head view --------------------------------------------------------------------------
  const svg = document.getElementById("head-svg");
  const overview = el("g", {id: "overview"}, svg);
  const focusLines = el("g", {id: "focus-lines"}, svg);
  const queryRows = el("g", {id: "queries"}, svg);
  const keyRows = el("g", {id: "keys"}, svg);
  const y = (i) => TOP + (i + 0.5) * ROW;
  // Each head's lines a little apart (within a row), so that heads stay told apart.
  const spread = H > 1 ? Math.min(3, (ROW - 8) / (H - 1)) : 0;
  const offset = (h) => (h - (H - 1) / 2) * spread;

  const queryText = [], keyText = [], weightText = [], queryGroup = [];
  for (let i = 0; i < n; i++) {
    const q = el("g", {class: "row query", "data-index": i}, queryRows);
    el("rect", {y: TOP + i * ROW, height: ROW}, q);
    const t = el("text", {class: "token query", "data-index": i, y: y(i), "text-anchor": "end"}, q);
    t.textContent = tokens[i];
    queryText.push(t);
    queryGroup.push(q);
    const k = el("g", {class: "row key", "data-index": i}, keyRows);
    el("rect", {y: TOP + i * ROW, height: ROW}, k);
    const u = el("text", {class: "token key", "data-index": i, y: y(i)}, k);
    u.textContent = tokens[i];
    keyText.push(u);
    weightText.push(el("text", {class: "weight", "data-index": i, y: y(i)}, k));
  }
  let widest = 0;
  for (const t of queryText) widest = Math.max(widest, t.getComputedTextLength());
  widest = Math.ceil(widest) + 6;
  const xQuery = 8 + widest;       // query tokens end here
  const x1 = xQuery + 6;           // lines start
  const x2 = x1 + SPAN;            // lines end
  const xKey = x2 + 6;             // key tokens start
  const xWeight = xKey + widest + 4;
  svg.setAttribute("width", xWeight + 48);
  svg.setAttribute("height", TOP + n * ROW + 8);
  for (const [x, anchor, text] of [[xQuery, "end", "query"], [xKey, "start", "key"]])
    el("text", {class: "column-title", x: x, y: 12, "text-anchor": anchor,
                "font-weight": "600"}, svg).textContent = text;
  for (let i = 0; i < n; i++) {
    queryText[i].setAttribute("x", xQuery);
    queryGroup[i].firstChild.setAttribute("x", 2);
    queryGroup[i].firstChild.setAttribute("width", xQuery + 2);
    keyText[i].setAttribute("x", xKey);
    keyRows.children[i].firstChild.setAttribute("x", xKey - 4);
    keyRows.children[i].firstChild.setAttribute("width", widest + 4);
    weightText[i].setAttribute("x", xWeight);
  }

  // Every line of the shown heads of the layer: one path per head and opacity level. Beyond
  // MAX_LINES lines (many heads of many tokens), the faintest levels are left out, and the
  // note under the controls says from which weight on lines are drawn.
  const MAX_LINES = 300000;
  const level = (w) => Math.round(Math.min(w, 1) * LEVELS);
  function drawOverview() {
    clear(overview);
    const l = state.layer;
    const count = new Float64Array(LEVELS + 1);
    for (let h = 0; h < H; h++) {
      if (!state.shown[h]) continue;
      for (let i = 0; i < n; i++) {
        const row = W[l][h][i], mask = maskOf(l, h, i);
        for (let j = 0; j < n; j++)
          if (drawn(row[j], mask, j)) count[level(row[j])]++;
      }
    }
    let lowest = 1, total = 0;
    for (let v = LEVELS; v >= 1; v--) {
      if (total + count[v] > MAX_LINES) {
        lowest = v + 1;
        break;
      }
      total += count[v];
    }
    document.getElementById("overview-note").textContent =
        lowest > 1 ? "Too many lines: those of weight under " + ((lowest - 0.5) / LEVELS) +
                         " are left out until a query is focused." : "";
    for (let h = 0; h < H; h++) {
      if (!state.shown[h]) continue;
      const levels = new Array(LEVELS + 1);
      for (let i = 0; i < n; i++) {
        const row = W[l][h][i], mask = maskOf(l, h, i), yi = y(i) + offset(h);
        for (let j = 0; j < n; j++) {
          const w = row[j];
          if (!drawn(w, mask, j) || level(w) < lowest) continue;
          (levels[level(w)] || (levels[level(w)] = []))
              .push("M" + x1 + " " + yi + "L" + x2 + " " + (y(j) + offset(h)));
        }
      }
      for (let v = lowest; v <= LEVELS; v++)
        if (levels[v])
          el("path", {class: "overview", "data-head": h, d: levels[v].join(""),
                      stroke: rgb(colours[h]), "stroke-opacity": v / LEVELS,
                      "stroke-width": 2}, overview);
    }
  }

  // The focused query's lines, one per shown head and key, and its weights beside the keys
  // when one head is shown.
  function drawFocus() {
    clear(focusLines);
    overview.style.display = state.focus === null ? "" : "none";
    for (let i = 0; i < n; i++) queryGroup[i].classList.toggle("focused", i === state.focus);
    const shown = [];
    for (let h = 0; h < H; h++) if (state.shown[h]) shown.push(h);
    for (let j = 0; j < n; j++) weightText[j].textContent = "";
    if (state.focus === null) return;
    const i = state.focus, l = state.layer;
    for (const h of shown) {
      const row = W[l][h][i], mask = maskOf(l, h, i);
      for (let j = 0; j < n; j++) {
        const w = row[j];
        if (!drawn(w, mask, j)) continue;
        el("line", {class: "focus", "data-head": h, "data-query": i, "data-key": j,
                    "data-weight": w, x1: x1, y1: y(i) + offset(h), x2: x2, y2: y(j) + offset(h),
                    stroke: rgb(colours[h]), "stroke-opacity": Math.min(w, 1),
                    "stroke-width": 2 + 4 * Math.min(w, 1)}, focusLines);
      }
    }
    if (shown.length === 1) {
      const row = W[l][shown[0]][i], mask = maskOf(l, shown[0], i);
      for (let j = 0; j < n; j++)
        weightText[j].textContent = mask && mask[j] ? "masked" : Number(row[j]).toFixed(3);
    }
  }

  function focus(i) {
    if (state.focus === i) return;
    state.focus = i;
    drawFocus();
  }
  queryRows.addEventListener("mouseover", (e) => {
    const row = e.target.closest(".row");
    if (row && !state.pinned) focus(Number(row.dataset.index));
  });
  queryRows.addEventListener("mouseleave", () => {
    if (!state.pinned) focus(null);
  });
  queryRows.addEventListener("click", (e) => {
    const row = e.target.closest(".row");
    if (!row) return;
    const i = Number(row.dataset.index);
    state.pinned = !(state.pinned && state.focus === i);
    focus(i);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && state.pinned) {
      state.pinned = false;
      focus(null);
    }
  });

  // Head toggles, one colour each; the layer selector when there are several layers.
  const toggles = [];
  const toggleBox = document.getElementById("head-toggles");
  for (let h = 0; h < H; h++) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "head-toggle";
    b.dataset.head = h;
    b.title = "click: hide or show; double-click: this " + axes[1] + " alone";
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = rgb(colours[h]);
    b.append(swatch, axes[1] + " " + data.heads[h]);
    b.addEventListener("click", () => {
      state.shown[h] = !state.shown[h];
      redraw();
    });
    b.addEventListener("dblclick", () => {
      state.shown.fill(false);
      state.shown[h] = true;
      redraw();
    });
    toggleBox.appendChild(b);
    toggles.push(b);
  }
  document.getElementById("heads-all").addEventListener("click", () => {
    state.shown.fill(true);
    redraw();
  });
  document.getElementById("heads-none").addEventListener("click", () => {
    state.shown.fill(false);
    redraw();
  });
  const layerSelect = document.getElementById("layer-select");
  if (L > 1) {
    document.getElementById("layer-control").hidden = false;
    document.getElementById("layer-axis").textContent =
        axes[0].charAt(0).toUpperCase() + axes[0].slice(1);
    for (let l = 0; l < L; l++) {
      const o = document.createElement("option");
      o.value = l;
      o.textContent = axes[0] + " " + data.layers[l];
      layerSelect.appendChild(o);
    }
    layerSelect.addEventListener("change", () => {
      state.layer = Number(layerSelect.value);
      redraw();
    });
  }

  // The values drawn: the weights, or view v's, each row divided by its sum when so scaled.
  const scaled = [];
  function valuesOf(v) {
    if (v < 0) return data.weights;
    if (views[v].scale !== "row_sum") return views[v].values;
    if (!scaled[v])
      scaled[v] = views[v].values.map((layer) => layer.map((head) => head.map((row) => {
        let sum = 0;
        for (const x of row) sum += x > 0 ? x : 0;
        return row.map((x) => (x > 0 && sum > 0 ? x / sum : 0));
      })));
    return scaled[v];
  }
  const valueButtons = [];
  if (views.length > 0) {
    const box = document.getElementById("value-toggles");
    box.hidden = false;
    box.querySelector(".value-toggle").textContent = data.name || "weights";
    views.forEach((view, v) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "value-toggle small";
      b.dataset.view = v;
      b.textContent = view.name;
      b.title = view.title + (view.scale === "row_sum" ? " (drawn as a fraction of the row's sum)" : "");
      box.appendChild(b);
    });
    for (const b of box.querySelectorAll(".value-toggle")) {
      valueButtons.push(b);
      b.addEventListener("click", () => drawValues(Number(b.dataset.view)));
    }
  }
  function drawValues(v) {
    state.values = v;
    W = valuesOf(v);
    for (const b of valueButtons)
      b.setAttribute("aria-pressed", String(Number(b.dataset.view) === v));
    if (gridBuilt) {
      clear(grid);
      gridBuilt = false;
      if (state.view === "model") buildGrid();
    }
    redraw();
  }

  function redraw() {
    for (let h = 0; h < H; h++) toggles[h].setAttribute("aria-pressed", String(state.shown[h]));
    layerSelect.value = state.layer;
    drawOverview();
    drawFocus();
  }

  // ---- model view -------------------------------------------------------------------------
  const grid = document.getElementById("model-grid");
  let gridBuilt = false;
  function thumbnail(l, h) {
    const c = document.createElement("canvas");
    c.width = n;
    c.height = n;
    c.className = "thumb";
    c.dataset.layer = l;
    c.dataset.head = h;
    c.title = axes[0] + " " + data.layers[l] + ", " + axes[1] + " " + data.heads[h];
    const ctx = c.getContext("2d");
    const image = ctx.createImageData(n, n);
    const px = image.data, col = colours[h];
    for (let i = 0; i < n; i++) {
      const row = W[l][h][i], mask = maskOf(l, h, i);
      for (let j = 0; j < n; j++) {
        const p = 4 * (i * n + j);
        if (mask && mask[j]) {
          px[p] = px[p + 1] = px[p + 2] = 221;
        } else {
          const w = Math.max(0, Math.min(1, Number(row[j]) || 0));
          for (let k = 0; k < 3; k++) px[p + k] = Math.round(255 + (col[k] - 255) * w);
        }
        px[p + 3] = 255;
      }
    }
    ctx.putImageData(image, 0, 0);
    c.addEventListener("click", () => openHead(l, h));
    return c;
  }
  function buildGrid() {
    gridBuilt = true;
    grid.style.gridTemplateColumns = "max-content repeat(" + H + ", max-content)";
    grid.appendChild(document.createElement("span"));
    for (let h = 0; h < H; h++) {
      const s = document.createElement("span");
      s.className = "axis";
      s.textContent = axes[1] + " " + data.heads[h];
      grid.appendChild(s);
    }
    for (let l = 0; l < L; l++) {
      const s = document.createElement("span");
      s.className = "axis";
      s.textContent = axes[0] + " " + data.layers[l];
      grid.appendChild(s);
      for (let h = 0; h < H; h++) grid.appendChild(thumbnail(l, h));
    }
  }
  function openHead(l, h) {
    state.layer = l;
    state.shown.fill(false);
    state.shown[h] = true;
    state.focus = null;
    state.pinned = false;
    show("head");
    redraw();
  }

  function show(view) {
    state.view = view;
    document.getElementById("head-view").hidden = view !== "head";
    document.getElementById("model-view").hidden = view !== "model";
    document.getElementById("tab-head").setAttribute("aria-pressed", String(view === "head"));
    document.getElementById("tab-model").setAttribute("aria-pressed", String(view === "model"));
    if (view === "model" && !gridBuilt) buildGrid();
  }
  document.getElementById("tab-head").addEventListener("click", () => show("head"));
  document.getElementById("tab-model").addEventListener("click", () => show("model"));

  redraw();
  // For the curious (and the tests): the data, the state, and when the page was ready.
  window.attnPage = {data: data, state: state, openHead: openHead, drawValues: drawValues,
                     readyMs: performance.now()};
})();
