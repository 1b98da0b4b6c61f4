// arena's drawing code for the browser: one game view (text or picture) on a canvas, and an
// entrant's observation (planes as small images, vectors as bars). Shared by the replay page
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

  // One observation part: planes as grey images, vectors as bars, other values as text.
  async function drawPart(part) {
    const box = element("div", "eye-part");
    box.appendChild(element("div", "eye-label", part.label));
    if (part.kind === "value") {
      box.appendChild(element("code", "", part.text));
      return box;
    }
    if (part.kind === "bars") {
      const canvas = element("canvas", "eye-bars");
      const n = part.v.length, bw = Math.max(3, Math.min(14, Math.floor(220 / n)));
      canvas.width = n * bw; canvas.height = 40;
      const ctx = canvas.getContext("2d");
      const span = part.hi > part.lo ? part.hi - part.lo : 1;
      const zero = Math.min(Math.max((0 - part.lo) / span, 0), 1) * 40;
      ctx.fillStyle = "#f1f1f1"; ctx.fillRect(0, 0, canvas.width, 40);
      part.v.forEach((v, i) => {
        const y = Math.min(Math.max((v - part.lo) / span, 0), 1) * 40;
        ctx.fillStyle = v >= 0 ? "#2a9d8f" : "#e76f51";
        ctx.fillRect(i * bw, 40 - Math.max(y, zero), bw - 1, Math.max(Math.abs(y - zero), 1));
      });
      canvas.title = part.v.join(", ");
      box.appendChild(canvas);
      return box;
    }
    const data = await inflate(part.z);
    const row = element("div", "eye-planes");
    const scale = Math.max(1, Math.floor(72 / Math.max(part.h, part.w)));
    for (let p = 0; p < part.n; p++) {
      const canvas = element("canvas", "eye-plane");
      canvas.width = part.w; canvas.height = part.h;
      canvas.style.width = `${part.w * scale}px`; canvas.style.height = `${part.h * scale}px`;
      const img = new ImageData(part.w, part.h);
      const off = p * part.w * part.h;
      for (let i = 0; i < part.w * part.h; i++) {
        const g = data[off + i];
        img.data[4 * i] = g; img.data[4 * i + 1] = g; img.data[4 * i + 2] = g; img.data[4 * i + 3] = 255;
      }
      canvas.getContext("2d").putImageData(img, 0, 0);
      row.appendChild(canvas);
    }
    box.appendChild(row);
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
