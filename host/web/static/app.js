// The trax-fpga page: draws what the server sends and sends what the person does.
// The server decides everything (legal tiles, results); the page never guesses a move.
// Messages: docs/web.md.

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";

let socket = null;
let state = null;
let tiles = {};         // oriented tile name -> SVG, from "hello"
let waiting = false;    // a move was sent and its state has not come back

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(message));
    return true;
  }
  showError("Not connected to the server.");
  return false;
}

function showError(text) {
  const el = $("error");
  el.textContent = text;
  el.hidden = !text;
}

function fillSelect(select, names) {
  select.replaceChildren(...names.map((name) => new Option(name, name)));
}

function onHello(msg) {
  tiles = msg.tiles;
  for (const id of ["opponent", "match-white", "match-black"]) fillSelect($(id), msg.opponents);
  if (msg.opponents.length > 1) $("match-black").selectedIndex = 1;
  // A server that only shows a match played elsewhere (referee --web) offers no players.
  $("play").disabled = $("watch").disabled = msg.opponents.length === 0;
}

function closeChooser() {
  $("chooser").hidden = true;
  for (const r of document.querySelectorAll("rect.space.chosen")) r.classList.remove("chosen");
}

function openChooser(square, rect) {
  closeChooser();
  rect.classList.add("chosen");
  const chooser = $("chooser");
  chooser.replaceChildren(...square.moves.map((m) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.move = m.move;
    b.title = m.move;
    b.setAttribute("aria-label", m.move);
    b.innerHTML = tiles[m.tile];
    b.addEventListener("click", () => play(m.move));
    return b;
  }));
  const box = rect.getBoundingClientRect();
  const area = $("board-area").getBoundingClientRect();
  chooser.style.left = `${box.right - area.left + 4}px`;
  chooser.style.top = `${box.top - area.top}px`;
  chooser.hidden = false;
  chooser.querySelector("button").focus();
}

function play(move) {
  closeChooser();
  if (waiting || !send({ type: "move", move })) return;
  waiting = true;
  for (const r of document.querySelectorAll("rect.space")) r.remove();
  $("status").textContent = `You play ${move} ...`;
}

function drawBoard(msg) {
  const board = $("board");
  board.innerHTML = msg.svg;
  const svg = board.querySelector("svg");
  if (msg.last) {     // outline the tile the last move put down
    const r = document.createElementNS(SVG_NS, "rect");
    for (const k of ["x", "y"]) r.setAttribute(k, msg.last[k] + 2);
    for (const k of ["width", "height"]) r.setAttribute(k, msg.last.size - 4);
    r.classList.add("last");
    svg.appendChild(r);
  }
  // Transparent squares over the picture where a legal tile may go; the server places
  // them with the picture's own geometry (render.space_box).
  for (const sq of msg.squares) {
    const r = document.createElementNS(SVG_NS, "rect");
    for (const [k, v] of [["x", sq.x], ["y", sq.y], ["width", sq.size], ["height", sq.size]]) {
      r.setAttribute(k, v);
    }
    r.classList.add("space");
    r.dataset.square = sq.square;
    r.dataset.moves = sq.moves.map((m) => m.move).join(" ");
    r.addEventListener("click", () => openChooser(sq, r));
    svg.appendChild(r);
  }
}

function drawMoves(msg) {
  $("moves").replaceChildren(...msg.moves.map((m) => {
    const li = document.createElement("li");
    li.textContent = m;
    return li;
  }));
  $("notation").value = msg.moves.join(" ");
  const p = msg.players;
  $("players").textContent = p.white || p.black ? `White: ${p.white}   Black: ${p.black}` : "";
  const t = msg.think;
  $("think").textContent = t === null ? "" :
    `last answer: ${(1000 * t.seconds).toFixed(1)} ms of thinking` +
    (t.clock === "simulated" ? " (simulated clock)" : "");
  // Look inside: the board's search and its own view of the game, where it reports them.
  const s = t && t.search;
  $("search").textContent = s ?
    `search: iteration ${s.depth}` + (s.nodes === null ? "" : `, ${s.nodes.toLocaleString("en")} nodes`) : "";
  $("board-status").textContent = t && t.status ? `board's :status: ${t.status}` : "";
}

function drawControls(msg) {
  const match = msg.match;
  const running = Boolean(match && match.running);
  $("start-match").disabled = running;
  $("stop-match").disabled = !(running && match.local && msg.control);
  $("new-game").disabled = running;
  // Undo while a game of yours is on and nobody is thinking; the server says when the
  // opponent cannot take moves back (a program or board behind the contest protocol).
  $("undo").disabled = !(msg.mode === "play" && msg.control && !msg.busy && msg.ply > 0);
  $("results").replaceChildren(...(match ? match.results : []).map((r) => {
    const li = document.createElement("li");
    li.textContent = `${r.result}  ${r.summary}`;
    return li;
  }));
  const replay = msg.replay;
  const stepping = msg.mode === "replay" && msg.control;
  for (const id of ["replay-first", "replay-prev", "replay-next", "replay-last"]) {
    $(id).disabled = !stepping;
  }
  $("replay-ply").textContent = replay ? `${replay.ply} / ${replay.length}` : "-";
}

function onState(msg) {
  state = msg;
  waiting = false;
  closeChooser();
  drawBoard(msg);
  drawMoves(msg);
  drawControls(msg);
  const note = msg.replay && msg.replay.note ? ` (${msg.replay.note})` : "";
  $("status").textContent = msg.status + note;
  document.body.dataset.mode = msg.mode;
  document.body.dataset.yourTurn = msg.your_turn;
  document.body.dataset.over = msg.over;
}

function connect() {
  const url = new URL("/ws", window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(url);
  socket.addEventListener("open", () => {
    $("connection").textContent = "connected";
    $("connection").className = "online";
    showError("");
  });
  socket.addEventListener("message", (event) => {
    const msg = JSON.parse(event.data);
    if (msg.type === "hello") onHello(msg);
    else if (msg.type === "state") onState(msg);
    else if (msg.type === "error") {
      waiting = false;
      showError(msg.message);
      if (state) onState(state);     // put back the squares of a refused move
    }
  });
  socket.addEventListener("close", () => {
    // The server went away (or restarted): say so, and try again every second.
    $("connection").textContent = "disconnected: reconnecting ...";
    $("connection").className = "offline";
    setTimeout(connect, 1000);
  });
}

function replayFile(file) {
  const reader = new FileReader();
  reader.addEventListener("load", () => send({ type: "replay", name: file.name, text: reader.result }));
  reader.addEventListener("error", () => showError(`Cannot read ${file.name}.`));
  reader.readAsText(file);
}

function seek(delta, absolute = null) {
  if (!state || !state.replay) return;
  const ply = absolute !== null ? absolute : state.replay.ply + delta;
  if (ply >= 0 && ply <= state.replay.length) send({ type: "seek", ply });
}

function wire() {
  $("new-game").addEventListener("click", () => {
    showError("");
    send({ type: "new", opponent: $("opponent").value, colour: $("colour").value });
  });
  $("start-match").addEventListener("click", () => {
    showError("");
    send({ type: "match", white: $("match-white").value, black: $("match-black").value,
           games: Number($("games").value) });
  });
  $("stop-match").addEventListener("click", () => send({ type: "stop" }));
  $("undo").addEventListener("click", () => { showError(""); send({ type: "undo" }); });
  $("copy").addEventListener("click", async () => {
    const text = $("notation").value;
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      $("notation").select();           // no clipboard (not a secure page): selected to copy
      document.execCommand("copy");
    }
  });
  $("replay-file").addEventListener("change", (e) => {
    showError("");
    if (e.target.files.length) replayFile(e.target.files[0]);
    e.target.value = "";
  });
  $("replay-first").addEventListener("click", () => seek(0, 0));
  $("replay-prev").addEventListener("click", () => seek(-1));
  $("replay-next").addEventListener("click", () => seek(1));
  $("replay-last").addEventListener("click", () => seek(0, state.replay.length));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeChooser();
    if (state && state.mode === "replay" && e.target.tagName !== "INPUT") {
      if (e.key === "ArrowLeft") seek(-1);
      if (e.key === "ArrowRight") seek(1);
    }
  });
  connect();
}

wire();
