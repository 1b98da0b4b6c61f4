// arena's drawing code for the browser: one game view (text or picture) on a canvas, and an
// entrant's observation (planes as a grid of small boards, vectors as a labelled bar chart). Shared by the replay page
// and the page of `arena serve`. Pictures come zlib-compressed in base64 (arena/replay/pack.py).
"use strict";

const ArenaView = (() => {
  async function inflate(b64) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  // An {img} view as an off-screen canvas of its own size (cached on the object).
  async function picture(img) {
    if (img.canvas) return img.canvas;
    const data = await inflate(img.z);
    const out = new ImageData(img.w, img.h);
    const px = out.data;
    if (img.pal) {
      for (let i = 0; i < data.length; i++) {
        const c = img.pal[data[i]];
        px[4 * i] = c[0]; px[4 * i + 1] = c[1]; px[4 * i + 2] = c[2]; px[4 * i + 3] = 255;
      }
    } else {
      for (let i = 0, j = 0; j < data.length; i++, j += 3) {
        px[4 * i] = data[j]; px[4 * i + 1] = data[j + 1]; px[4 * i + 2] = data[j + 2]; px[4 * i + 3] = 255;
      }
    }
    const canvas = document.createElement("canvas");
    canvas.width = img.w; canvas.height = img.h;
    canvas.getContext("2d").putImageData(out, 0, 0);
    img.canvas = canvas;
    return canvas;
  }

  const GLYPH_COLOURS = { X: "#d62828", O: "#1d4ed8", x: "#d62828", o: "#1d4ed8", "*": "#2a9d8f", "@": "#e76f51" };

  const GRID_ROW = /^[.XOxo#*@_-]{3,}$/;

  // The longest run of equal-length rows of board characters (".XO"), if at least 3 rows.
  function findGrid(lines) {
    let best = null;
    for (let i = 0; i < lines.length; i++) {
      let j = i;
      while (j < lines.length && GRID_ROW.test(lines[j]) && lines[j].length === lines[i].length) j++;
      if (j - i >= 3 && (!best || j - i > best.end - best.start)) best = { start: i, end: j };
      i = Math.max(i, j - 1);
    }
    return best;
  }

  function drawBoard(ctx, rows, x0, y0, cell) {
    const cols = rows[0].length;
    ctx.fillStyle = "#f3e9d2";
    ctx.fillRect(x0, y0, cols * cell, rows.length * cell);
    ctx.strokeStyle = "#8d7b5a";
    ctx.lineWidth = 1;
    for (let r = 0; r <= rows.length; r++) { ctx.beginPath(); ctx.moveTo(x0, y0 + r * cell); ctx.lineTo(x0 + cols * cell, y0 + r * cell); ctx.stroke(); }
    for (let c = 0; c <= cols; c++) { ctx.beginPath(); ctx.moveTo(x0 + c * cell, y0); ctx.lineTo(x0 + c * cell, y0 + rows.length * cell); ctx.stroke(); }
    ctx.font = `bold ${Math.floor(cell * 0.7)}px "Liberation Sans", "DejaVu Sans", sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    rows.forEach((row, r) => {
      for (let c = 0; c < row.length; c++) {
        const ch = row[c];
        if (ch === "." || ch === "_" || ch === "-") continue;
        ctx.fillStyle = GLYPH_COLOURS[ch] || "#222";
        ctx.fillText(ch, x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell + 1);
      }
    });
    ctx.textAlign = "start";
  }

  // A text render drawn on the canvas: a board of marks (".XO" rows) as a grid of cells,
  // any other line as monospace text, the whole sized to fit.
  function drawText(ctx, text, width, height) {
    ctx.canvas.arenaGrid = null;
    const lines = text.replace(/\s+$/, "").split("\n");
    ctx.fillStyle = "#fdfaf3";
    ctx.fillRect(0, 0, width, height);
    const grid = findGrid(lines);
    const others = grid ? lines.length - (grid.end - grid.start) : lines.length;
    const cols = Math.max(1, ...lines.map((l) => l.length));
    const font = Math.max(8, Math.min(width / (cols * 0.62), (grid ? height * 0.3 : height) / Math.max(1, others * 1.25), 22));
    const lh = font * 1.25;
    let cell = 0;
    if (grid) {
      const rows = grid.end - grid.start;
      cell = Math.min((width - 16) / lines[grid.start].length, (height - 16 - others * lh) / rows, 90);
    }
    let y = Math.max(8, (height - (others * lh + (grid ? (grid.end - grid.start) * cell + 8 : 0))) / 2);
    for (let i = 0; i < lines.length; i++) {
      if (grid && i === grid.start) {
        const rows = lines.slice(grid.start, grid.end);
        const x0 = (width - rows[0].length * cell) / 2;
        drawBoard(ctx, rows, x0, y, cell);
        ctx.canvas.arenaGrid = { x0, y0: y, cell, rows: rows.length, cols: rows[0].length };
        y += rows.length * cell + 8;
        i = grid.end - 1;
        continue;
      }
      const line = lines[i];
      // Column labels under a board line up with its cells.
      const under = grid && i === grid.end && line.length === lines[grid.start].length;
      ctx.font = `${font}px "Liberation Mono", "DejaVu Sans Mono", monospace`;
      ctx.textBaseline = "top";
      if (under) {
        const x0 = (width - line.length * cell) / 2;
        ctx.textAlign = "center";
        ctx.fillStyle = "#555";
        for (let c = 0; c < line.length; c++) ctx.fillText(line[c], x0 + (c + 0.5) * cell, y);
        ctx.textAlign = "start";
      } else {
        const x0 = Math.max(6, (width - line.length * font * 0.62) / 2);
        for (let c = 0; c < line.length; c++) {
          if (line[c] === " ") continue;
          ctx.fillStyle = "#222";
          ctx.fillText(line[c], x0 + c * font * 0.62, y);
        }
      }
      y += lh;
    }
  }

  // Draw a packed view ({text} or {img}) to fill `canvas`, keeping the picture's proportions.
  async function draw(canvas, view) {
    const ctx = canvas.getContext("2d");
    const { width, height } = canvas;
    if (!view) {
      ctx.fillStyle = "#eee"; ctx.fillRect(0, 0, width, height);
      return;
    }
    canvas.arenaGrid = null;
    if (view.text !== undefined) { drawText(ctx, view.text, width, height); return; }
    const source = await picture(view.img);
    const scale = Math.min(width / view.img.w, height / view.img.h);
    const w = view.img.w * scale, h = view.img.h * scale;
    ctx.fillStyle = "#000"; ctx.fillRect(0, 0, width, height);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(source, (width - w) / 2, (height - h) / 2, w, h);
  }

  function element(tag, cls, text) {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined) el.textContent = text;
    return el;
  }

  const FONT = '"Liberation Sans", "DejaVu Sans", sans-serif';

  // A number as short text: integers as they are, others with 2 significant digits.
  function short(v) {
    if (Number.isInteger(v)) return String(v);
    const a = Math.abs(v);
    return a >= 100 || a < 0.01 ? v.toExponential(0).replace("e+", "e") : String(Number(v.toPrecision(2)));
  }

  // Value -> colour on a white-to-teal ramp (0..1 of the part's range); below the range red.
  function shade(t) {
    const c = Math.min(Math.max(t, 0), 1);
    return `rgb(${Math.round(255 - 213 * c)},${Math.round(255 - 98 * c)},${Math.round(255 - 112 * c)})`;
  }

  // A vector as a labelled bar chart: value axis (low, 0, high), one bar per entry with its
  // index under it, and each value over its bar while there is room. Rows of at most 32 bars.
  function barChart(values, lo, hi) {
    const wrap = element("div", "eye-bar-rows");
    const perRow = 32;
    for (let start = 0; start < values.length; start += perRow) {
      const row = values.slice(start, start + perRow);
      const bw = 20, left = 34, top = 14, plot = 64, bottom = 16;
      const canvas = element("canvas", "eye-bars");
      canvas.width = left + row.length * bw + 6; canvas.height = top + plot + bottom;
      const ctx = canvas.getContext("2d");
      const span = hi > lo ? hi - lo : 1;
      const yOf = (v) => top + plot - Math.min(Math.max((v - lo) / span, 0), 1) * plot;
      const zero = yOf(Math.min(Math.max(0, lo), hi));
      ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.strokeStyle = "#ccc"; ctx.lineWidth = 1;
      ctx.strokeRect(left - 0.5, top - 0.5, row.length * bw + 1, plot + 1);
      ctx.font = `10px ${FONT}`; ctx.fillStyle = "#555"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
      ctx.fillText(short(hi), left - 4, top);
      ctx.fillText(short(lo), left - 4, top + plot);
      if (lo < 0 && hi > 0) {
        ctx.fillText("0", left - 4, zero);
        ctx.strokeStyle = "#888"; ctx.beginPath(); ctx.moveTo(left, zero); ctx.lineTo(left + row.length * bw, zero); ctx.stroke();
      }
      ctx.textAlign = "center";
      row.forEach((v, i) => {
        const x = left + i * bw, y = yOf(v);
        ctx.fillStyle = v >= 0 ? "#2a9d8f" : "#e76f51";
        ctx.fillRect(x + 3, Math.min(y, zero), bw - 6, Math.max(Math.abs(y - zero), v === 0 ? 0 : 1));
        ctx.fillStyle = "#333"; ctx.textBaseline = "alphabetic";
        if (v !== 0) ctx.fillText(short(v), x + bw / 2, Math.max(Math.min(y, zero) - 2, 10));
        ctx.fillStyle = "#777"; ctx.textBaseline = "top";
        ctx.fillText(String(start + i), x + bw / 2, top + plot + 3);
      });
      canvas.title = row.map((v, i) => `[${start + i}] ${v}`).join("\n");
      wrap.appendChild(canvas);
    }
    return wrap;
  }

  // One plane as a small board: a cell per entry shaded by value, grid lines, and the value
  // written in each non-zero cell when the cells are big enough to read. `rowStarts` (a long
  // vector wrapped into rows) labels each row with the index of its first entry.
  function board(values, h, w, lo, hi, caption, rowStarts = false) {
    const cellSize = rowStarts ? 9 : Math.max(2, Math.min(28, Math.floor(132 / Math.max(h, w))));
    const x0 = rowStarts ? 30 : 0;
    const canvas = element("canvas", "eye-plane");
    canvas.width = x0 + w * cellSize + 1; canvas.height = h * cellSize + 1;
    const ctx = canvas.getContext("2d");
    const span = hi > lo ? hi - lo : 1;
    for (let r = 0; r < h; r++) {
      for (let c = 0; c < w; c++) {
        ctx.fillStyle = shade((values[r * w + c] - lo) / span);
        ctx.fillRect(x0 + c * cellSize, r * cellSize, cellSize, cellSize);
      }
    }
    if (cellSize >= 5) {
      ctx.strokeStyle = "#b9b9b9"; ctx.lineWidth = 1;
      for (let r = 0; r <= h; r++) { ctx.beginPath(); ctx.moveTo(x0, r * cellSize + 0.5); ctx.lineTo(x0 + w * cellSize, r * cellSize + 0.5); ctx.stroke(); }
      for (let c = 0; c <= w; c++) { ctx.beginPath(); ctx.moveTo(x0 + c * cellSize + 0.5, 0); ctx.lineTo(x0 + c * cellSize + 0.5, h * cellSize); ctx.stroke(); }
    }
    if (rowStarts) {
      ctx.font = `8px ${FONT}`; ctx.fillStyle = "#777"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
      for (let r = 0; r < h; r += 2) ctx.fillText(String(r * w), x0 - 3, (r + 0.5) * cellSize);
    }
    if (cellSize >= 16) {
      ctx.font = `${Math.floor(cellSize * 0.42)}px ${FONT}`; ctx.textAlign = "center"; ctx.textBaseline = "middle";
      for (let r = 0; r < h; r++) {
        for (let c = 0; c < w; c++) {
          const v = values[r * w + c];
          if (v === 0) continue;
          ctx.fillStyle = (v - lo) / span > 0.6 ? "#fff" : "#222";
          ctx.fillText(short(v), (c + 0.5) * cellSize, (r + 0.5) * cellSize + 1);
        }
      }
    }
    const figure = element("figure", "eye-board");
    figure.appendChild(canvas);
    figure.appendChild(element("figcaption", "", caption));
    canvas.title = `${caption}: ${h} x ${w}`;
    return figure;
  }

  // The colour ramp of a part, from its low to its high value.
  function legend(lo, hi) {
    const box = element("div", "eye-legend");
    box.append(short(lo), element("span", "eye-ramp"), short(hi));
    return box;
  }

  // One observation part: a vector as a labelled bar chart, planes as a grid of small boards
  // (a long vector packed as one row is wrapped into a board of 32 columns), other values as text.
  async function drawPart(part) {
    const box = element("div", "eye-part");
    box.appendChild(element("div", "eye-label", part.label));
    if (part.kind === "value") {
      box.appendChild(element("code", "", part.text));
      return box;
    }
    if (part.kind === "bars") {
      box.appendChild(barChart(part.v, part.lo, part.hi));
      return box;
    }
    const data = await inflate(part.z);
    const span = part.hi > part.lo ? part.hi - part.lo : 1;
    const value = (g) => part.lo + (g / 255) * span;  // the packer scaled values to 0..255 over [lo, hi]
    const grid = element("div", "eye-planes");
    const size = part.w * part.h;
    for (let p = 0; p < part.n; p++) {
      let values = Array.from(data.subarray(p * size, (p + 1) * size), value), h = part.h, w = part.w;
      let caption = part.names ? part.names[p] : part.n > 1 ? `plane ${p}` : `${h} x ${w}`;  // named planes: by name
      const long = h === 1 && w > 32;
      if (long) {  // a long vector: rows of 32 entries, padded with the low value
        w = 32; h = Math.ceil(values.length / w);
        caption = `entries 0-${values.length - 1}, ${w} a row`;
        values = values.concat(new Array(h * w - values.length).fill(part.lo));
      }
      grid.appendChild(board(values, h, w, part.lo, part.hi, caption, long));
    }
    box.appendChild(grid);
    box.appendChild(legend(part.lo, part.hi));
    return box;
  }

  async function drawObservation(container, parts) {
    const boxes = await Promise.all(parts.map(drawPart));
    container.replaceChildren(...boxes);
  }

  // The board cell under a click on `canvas` ({row, col}), if a board of marks is drawn there.
  function cellAt(canvas, event) {
    const grid = canvas.arenaGrid;
    if (!grid) return null;
    const box = canvas.getBoundingClientRect();
    const x = (event.clientX - box.left) * (canvas.width / box.width) - grid.x0;
    const y = (event.clientY - box.top) * (canvas.height / box.height) - grid.y0;
    const col = Math.floor(x / grid.cell), row = Math.floor(y / grid.cell);
    return col >= 0 && col < grid.cols && row >= 0 && row < grid.rows ? { row, col } : null;
  }

  return { inflate, picture, draw, drawObservation, element, cellAt };
})();
