// The page of `arena serve`: shows the game pushed over the websocket (drawn by the replay
// viewer's ArenaView), sends clicks on the action buttons (turn-based games) or the key held
// down (real-time games), and offers a new game at the end.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const board = $("board"), status = $("status"), actions = $("actions"), again = $("again");
  // The token of the printed address opens the socket too (the server refuses any other page).
  const token = new URLSearchParams(location.search).get("token") || "";
  const ws = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  let hello = null, drawing = Promise.resolve(), held = [], turn = null;
  let waiting = false;  // a real-time game waits for the first key before its clock starts

  function buttons(legal) {
    actions.replaceChildren();
    if (!legal || !hello || hello.real_time) return;
    for (const index of legal) {
      const button = ArenaView.element("button", "move", hello.actions[index]);
      button.dataset.action = String(index);
      button.addEventListener("click", () => {
        actions.replaceChildren();
        status.textContent = "waiting for the other players…";
        ws.send(JSON.stringify({ type: "move", action: index, turn }));  // the board this move answers
      });
      actions.appendChild(button);
    }
  }

  // A click on a board cell plays the legal action named for it ("r1c2", "column 3").
  board.addEventListener("click", (event) => {
    const at = ArenaView.cellAt(board, event);
    if (!at || !hello || hello.real_time) return;
    const wanted = [`r${at.row}c${at.col}`, `column ${at.col}`, `col ${at.col}`, `c${at.col}`];
    const button = Array.from(actions.querySelectorAll("button.move"))
      .find((b) => wanted.includes(b.textContent.toLowerCase()));
    if (button) button.click();
  });

  function show(message) {
    if (message.view) drawing = drawing.then(() => ArenaView.draw(board, message.view));
    turn = message.turn ?? null;
    $("private").textContent = message.private || "";
    if (message.returned !== undefined) $("score").textContent = `your reward so far: ${message.returned}`;
    status.textContent = message.status;
    buttons(message.legal);
  }

  function sendHeld() {
    const action = held.length ? held[held.length - 1] : null;
    ws.send(JSON.stringify({ type: "key", action }));
  }

  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "hello") {
      hello = message;
      waiting = message.real_time;  // its clock starts at the first key, even one pressed before the first view
      again.hidden = true;
      status.textContent = "starting the game…";
      $("title").textContent = `${message.env}: you play ${message.seat} (seed ${message.seed})`;
      $("cast").textContent = Object.entries(message.cast).map(([s, who]) => `${s}: ${who}`).join(", ");
      const keys = Object.entries(message.keys).filter(([k]) => k.length > 1 || k === " ")
        .map(([k, a]) => `${k === " " ? "Space" : k.replace("Arrow", "")}: ${message.actions[a]}`);
      $("help").textContent = message.real_time
        ? `Keys: ${keys.join(", ")}; digits 1-9 pick an action by number; no key: ${message.actions[message.idle]}.`
        : "Click an action when it is your move.";
      board.focus();
    } else if (message.type === "view") {
      show(message);
    } else if (message.type === "end") {
      show(message);
      status.textContent = `Game over: ${message.outcome}` + (message.game ? ` (recorded as game ${message.game})` : "");
      document.body.dataset.over = "1";
      again.hidden = false;
    } else if (message.type === "error" || message.type === "wait") {
      status.textContent = message.text;
    }
  };
  ws.onclose = () => { if (!document.body.dataset.over) status.textContent = "the server closed the game"; };

  again.addEventListener("click", () => {
    delete document.body.dataset.over;
    again.hidden = true;
    ws.send(JSON.stringify({ type: "start" }));
  });
  document.addEventListener("keydown", (event) => {
    if (!hello || !hello.real_time || event.repeat) return;
    if (waiting) { waiting = false; ws.send(JSON.stringify({ type: "ready" })); }
    const action = hello.keys[event.key];
    if (action === undefined) return;
    event.preventDefault();
    held = held.filter((a) => a !== action).concat([action]);
    sendHeld();
  });
  document.addEventListener("keyup", (event) => {
    if (!hello || !hello.real_time) return;
    const action = hello.keys[event.key];
    if (action === undefined) return;
    held = held.filter((a) => a !== action);
    sendHeld();
  });
})();
