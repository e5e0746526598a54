/* attn's page, its tables: each element of #attn-data's "extras" of kind "table" (html.hpp),
     {"name", "title", "axis", "rows": [R], "texts": [R][n] (optional), "values": [R][n]},
   drawn under the head and model views as an HTML table: a column per token (the page's
   tokens as headers), a row per row label, each cell its text over its value (3 decimals; the
   full number in data-value and the cell's title), shaded by the value where it lies in
   [0, 1]. Reads the data page.js parsed (window.attnPage.data). */
(function () {
  "use strict";
  const data = window.attnPage.data;
  const box = document.getElementById("tables");
  const tables = (data.extras || []).filter((e) => e.kind === "table");
  function add(parent, name, text, className) {
    const e = document.createElement(name);
    if (text !== undefined) e.textContent = text;
    if (className) e.className = className;
    parent.appendChild(e);
    return e;
  }
  for (const t of tables) {
    const section = add(box, "section", undefined, "table-view");
    section.dataset.name = t.name;
    add(section, "h2", t.title);
    const scroll = add(section, "div", undefined, "table-scroll");
    const table = add(scroll, "table", undefined, "cells");
    table.dataset.name = t.name;
    const head = add(add(table, "thead"), "tr");
    add(head, "th", t.axis + " \\ token", "corner");
    data.tokens.forEach((token, j) => {
      const th = add(head, "th", token, "token");
      th.dataset.column = j;
    });
    const body = add(table, "tbody");
    t.rows.forEach((label, r) => {
      const tr = add(body, "tr");
      add(tr, "th", t.axis + " " + label, "row-label");
      t.values[r].forEach((v, j) => {
        const td = add(tr, "td");
        td.dataset.row = r;
        td.dataset.column = j;
        td.dataset.value = v === null ? "NaN" : String(v);
        td.title = (t.texts ? t.texts[r][j] + ": " : "") + (v === null ? "NaN" : v);
        if (t.texts) add(td, "span", t.texts[r][j], "text");
        add(td, "span", v === null ? "NaN" : Number(v).toFixed(3), "value");
        if (v !== null && v >= 0 && v <= 1)
          td.style.background = "rgba(78, 121, 167, " + (0.6 * v).toFixed(3) + ")";
      });
    });
  }
})();
