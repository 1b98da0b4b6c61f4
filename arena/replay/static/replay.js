// The replay page: play/pause, a step slider, speed, a panel with each step's actions, rewards
// and legal actions, the agent's-eye view of entrants behind interfaces, and the side view of a
// team env (a whole side through one side interface). GAME is the data written by arena/replay/html.py.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const frames = GAME.frames;
  const board = $("board"), slider = $("slider"), play = $("play"), speed = $("speed");
  const eyeSeat = $("eye-seat"), sideName = $("side-name");
  let position = 0, timer = null, drawing = Promise.resolve();
  const hidden = frames.some((f) => Object.keys(f.sees).length > 0);  // a game with private observations

  slider.max = String(frames.length - 1);

  // The key to the env's pictures: a sample of each thing as the board draws it, and what it is.
  async function legend() {
    const box = $("legend");
    if (!box) return;
    for (const entry of GAME.legend) {
      const item = ArenaView.element("div", "legend-item");
      const sample = ArenaView.element("canvas", "legend-sample");
      sample.width = 26; sample.height = 26;
      if (entry.img) {
        const ctx = sample.getContext("2d");
        ctx.imageSmoothingEnabled = false;
        ctx.drawImage(await ArenaView.picture(entry.img), 0, 0, sample.width, sample.height);
      }
      item.append(sample, ArenaView.element("span", "", entry.label));
      box.appendChild(item);
    }
  }

  function cell(row, text, cls) {
    const td = ArenaView.element("td", cls, text);
    row.appendChild(td);
    return td;
  }

  function panel(frame) {
    const body = $("panel-body");
    body.replaceChildren();
    for (const seat of GAME.agents) {
      const row = ArenaView.element("tr", frame.acting.includes(seat) ? "acting" : "");
      cell(row, `${seat}${GAME.seats[seat] ? " (" + GAME.seats[seat] + ")" : ""}`);
      cell(row, frame.actions[seat] !== undefined ? frame.actions[seat] : frame.acting.includes(seat) ? "…" : "");
      cell(row, frame.rewards[seat] !== undefined ? String(frame.rewards[seat]) : "");
      cell(row, String(frame.returns[seat] ?? 0));
      cell(row, frame.masks[seat] ? frame.masks[seat].join(", ") : "", "legal");
      if (hidden) cell(row, frame.sees[seat] || "", "legal");
      cell(row, frame.ended[seat] || "", "ended");
      body.appendChild(row);
    }
  }

  async function eye(frame) {
    const seat = eyeSeat ? eyeSeat.value : null;
    if (!seat) return;
    const view = frame.eye[seat];
    const info = $("eye-info"), parts = $("eye-parts");
    if (!view) {
      info.textContent = frame.step < frames.length - 1 ? `${seat} does not act at step ${frame.step}.` : "The game is over.";
      parts.replaceChildren();
      return;
    }
    info.replaceChildren();
    if (view.matches === null) {  // a trained folder whose model was not loaded: what its interfaces made, no choice
      info.append(`what ${seat}'s interfaces gave its model (not loaded: see the note below); it played ${frame.actions[seat]}`);
      await ArenaView.drawObservation(parts, view.parts);
      return;
    }
    info.append(`${seat} chose ${view.action} in its own space, sent as ${view.raw} to the env`);
    if (!view.matches) info.appendChild(ArenaView.element("span", "mismatch", " (not the stored action: the agent is not deterministic)"));
    await ArenaView.drawObservation(parts, view.parts);
  }

  async function sideView(frame) {
    if (!sideName) return;
    const side = sideName.value, shown = (frame.sides || {})[side];
    const info = $("side-info"), parts = $("side-parts");
    if (!shown) {
      info.textContent = `No member of ${side} acts at step ${frame.step}.`;
      parts.replaceChildren();
      return;
    }
    info.textContent = `${side} through ${GAME.side_view}: ${shown.acting} of ${GAME.sides[side]} members acting`;
    await ArenaView.drawObservation(parts, shown.parts);
  }

  function show(index) {
    position = Math.max(0, Math.min(index, frames.length - 1));
    const frame = frames[position];
    slider.value = String(position);
    $("step").textContent = `${frame.step} / ${frames.length - 1}`;
    panel(frame);
    // Draw in order: a slow picture must not overwrite a later one.
    drawing = drawing.then(() => ArenaView.draw(board, frame.view)).then(() => eye(frame))
      .then(() => sideView(frame)).then(() => { board.dataset.step = String(frame.step); });
    return drawing;
  }

  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "Play";
  }

  function start() {
    if (position >= frames.length - 1) show(0);
    play.textContent = "Pause";
    timer = setInterval(() => {
      show(position + 1);
      if (position >= frames.length - 1) pause();
    }, 1000 / Number(speed.value));
  }

  play.addEventListener("click", () => (timer === null ? start() : pause()));
  speed.addEventListener("change", () => { if (timer !== null) { pause(); start(); } });
  slider.addEventListener("input", () => show(Number(slider.value)));
  $("prev").addEventListener("click", () => { pause(); show(position - 1); });
  $("next").addEventListener("click", () => { pause(); show(position + 1); });
  if (eyeSeat) eyeSeat.addEventListener("change", () => eye(frames[position]));
  if (sideName) sideName.addEventListener("change", () => sideView(frames[position]));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowRight") { pause(); show(position + 1); }
    else if (ev.key === "ArrowLeft") { pause(); show(position - 1); }
    else if (ev.key === " ") { ev.preventDefault(); timer === null ? start() : pause(); }
  });
  show(0);
  legend();
})();
