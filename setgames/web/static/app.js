// The web table's page: it shows what the server sends and sends what is clicked.
// No rules here: the legal moves, warnings, hints and tools all come from the server.
"use strict";

let view = null;          // the last view the server sent
let selected = null;      // the selected move (games with move buttons: Tu Sac)
let picks = [];           // Find Trash: the moves it points at, and where the cycle is
let pickAt = 0;
let toolText = "";        // what the tool said, kept under the selection
let watching = null;      // the watch WebSocket
let pending = null;       // the move waiting for the warning's answer

const $ = (id) => document.getElementById(id);

async function api(op, data) {
  const init = op === "state"
    ? { method: "GET" }
    : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data || {}) };
  const res = await fetch("/api/" + op, init);
  let body = {};
  try { body = await res.json(); } catch (e) { body = { error: "bad answer from the server" }; }
  return { ok: res.ok, status: res.status, body };
}

function say(text, error) {
  const m = $("message");
  m.textContent = text || "";
  m.className = error ? "error" : "";
}

function option(sel, value, text) {
  const o = document.createElement("option");
  o.value = value; o.textContent = text; sel.appendChild(o);
}

function fillForm(v) {
  const game = $("game");
  if (!game.options.length) {
    v.games.forEach((g) => option(game, g.name, g.title));
    if (v.game) game.value = v.game;
    fillPlayers();
  }
  const saves = $("saves");
  saves.innerHTML = "";
  v.saves.forEach((s) => option(saves, s, s));
}

// The bots offered depend on the game (Tet Hsi's search also infers): a choice the new game
// offers too is kept; the hint bot left at the strongest moves to the new game's strongest.
function fillBots() {
  const bots = (view.game_bots && view.game_bots[$("game").value]) || view.bots;
  for (const id of ["opponents", "hint-bot"]) {
    const sel = $(id);
    const was = sel.value;
    const strongest = sel.options.length > 0 && sel.selectedIndex === sel.options.length - 1;
    sel.innerHTML = "";
    bots.forEach((b) => option(sel, b, view.bot_titles[b] || b));
    if (id === "hint-bot" && (strongest || !bots.includes(was))) sel.value = bots[bots.length - 1];
    else sel.value = bots.includes(was) ? was : "greedy";
  }
}

function fillPlayers() {
  fillBots();
  const g = view.games.find((x) => x.name === $("game").value);
  const players = $("players");
  players.innerHTML = "";
  g.players.forEach((n) => option(players, n, n));
  players.value = g.players[g.players.length - 1];
  fillSeats();
}

function fillSeats() {
  const seat = $("seat");
  seat.innerHTML = "";
  for (let s = 0; s < +$("players").value; s++) option(seat, s, "player_" + s);
}

function blockButtons() {
  return (view && view.buttons) || [];
}

function show(v, keepMessage) {
  view = v;
  // A counter of views shown: lets a test (or a person debugging) see that an answer arrived.
  document.body.dataset.views = (+document.body.dataset.views || 0) + 1;
  fillForm(v);
  if (!keepMessage) say("");
  $("policy").textContent = v.policy || "";
  if (!v.game) return;
  document.title = v.title + " · setgames";
  document.body.classList.toggle("over", !!v.over);
  $("table").innerHTML = v.svg;
  fitTable();
  selected = null;
  picks = []; pickAt = 0;
  $("choices").innerHTML = "";
  let status;
  if (v.over) {
    const r = v.returns.map((x, s) => "player_" + s + " " + (x > 0 ? "+" : "") + x).join(", ");
    // An opponent that failed to move forfeits: the game is over, the deal is not (undo takes it back).
    const f = v.forfeit ? "player_" + v.forfeit.seat + " (" + v.forfeit.title + ") forfeits: " +
      v.forfeit.reason + "; " : "";
    status = "Game over: " + f + r + (v.seed !== null ? " (seed " + v.seed + ")" : "");
  } else if (v.your_turn) {
    status = v.title + ": your move (player_" + v.human_seat + ")";
  } else {
    status = v.title + ": player_" + v.to_act + " to move";
  }
  $("status").textContent = status;
  $("status").dataset.over = v.over ? "1" : "0";
  const moves = $("moves");
  moves.innerHTML = "";
  v.moves.forEach((m) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.textContent = m.label;
    b.id = "move-" + m.action;
    b.className = "move-btn";
    b.dataset.action = m.action;
    b.onclick = () => play(m.action);
    li.appendChild(b);
    moves.appendChild(li);
  });
  const gb = $("game-buttons");
  gb.innerHTML = "";
  blockButtons().forEach((button) => {
    const b = document.createElement("button");
    b.textContent = button.title;
    b.id = "btn-" + button.title.toLowerCase();
    b.disabled = !movesOf(button).length;
    b.onclick = () => pressButton(button);
    gb.appendChild(b);
  });
  $("quick-select").hidden = !blockButtons().length;
  const cmds = $("commands");
  cmds.innerHTML = "";
  v.commands.forEach((c) => {
    const b = document.createElement("button");
    b.textContent = c.title;
    b.title = c.help;
    b.id = "cmd-" + c.name;
    b.onclick = () => runCommand(c.name);
    b.disabled = !v.your_turn;
    cmds.appendChild(b);
  });
  $("undo").disabled = !v.can_undo;
  $("redo").disabled = !v.can_redo;
  $("hint").disabled = $("quick").disabled = $("quick-select").disabled = !v.your_turn;
  const log = $("log");
  log.innerHTML = "";
  v.log.forEach((line) => { const li = document.createElement("li"); li.textContent = line; log.appendChild(li); });
  log.scrollTop = log.scrollHeight;
  document.querySelectorAll("#table .move").forEach((g) => {
    g.addEventListener("click", () => clickCard(+g.dataset.action));
  });
}

// On a narrow screen the table is drawn large enough that its narrowest card is ~42 CSS px
// wide and the names on its chips (discard piles, Sets, melds) ~10.5 px (the table then
// scrolls sideways); on a wide one it fills its column.
function fitTable() {
  const svg = $("table").querySelector("svg");
  if (!svg) return;
  if (window.innerWidth > 820) { svg.style.width = ""; return; }
  const box = svg.viewBox.baseVal.width || +svg.getAttribute("width");
  // Sizes as drawn now, in units of the picture: a card drawn inside a scaled group counts at its size.
  const now = svg.getBoundingClientRect().width / box;
  const cards = [...svg.querySelectorAll(".move > rect:first-of-type")].map((r) => r.getBoundingClientRect().width / now);
  const narrowest = Math.min(...cards.filter((w) => w > 0), box);
  const fonts = [...svg.querySelectorAll("[data-chip] text")].map((x) => +x.getAttribute("font-size"));
  const textScale = fonts.length ? 10.5 / Math.min(...fonts) : 0;
  // With no clickable card (another seat's turn, the end) the last size is kept: the cards are the same.
  if (cards.length) cardScale[view.game] = 42 / narrowest;
  const scale = Math.max($("table-wrap").clientWidth / box, cardScale[view.game] || 0, textScale);
  svg.style.width = Math.round(box * scale) + "px";
}
const cardScale = {};  // per game: the scale at which its narrowest card is ~42 px
window.addEventListener("resize", fitTable);

function movesOf(button) {
  return view.moves.filter((m) => button.blocks.includes(m.block));
}

function select(action, note) {
  selected = action;
  document.querySelectorAll("#table .move").forEach((g) => {
    g.classList.toggle("selected", +g.dataset.action === action);
  });
  const m = view.moves.find((x) => x.action === action);
  if (m) say("Selected: " + m.label + (note ? "\n" + note : ""));
}

function clickCard(action) {
  if (blockButtons().length) select(action); else play(action);
}

function pressButton(button) {
  const moves = movesOf(button);
  $("choices").innerHTML = "";
  if (selected !== null && moves.some((m) => m.action === selected)) return play(selected);
  if (moves.length === 1) return play(moves[0].action);
  if (!moves.length) return;
  // Several moves of this kind (two ways to meld): the person picks one; the selection could not tell.
  say(button.title + ": choose one");
  moves.forEach((m) => {
    const b = document.createElement("button");
    b.textContent = m.label;
    b.className = "choice";
    b.onclick = () => play(m.action);
    $("choices").appendChild(b);
  });
}

async function play(action, confirm) {
  const r = await api("move", { action, confirm: !!confirm });
  if (r.ok) return show(r.body);
  if (r.body.warning) {
    pending = r.body.warning.action;
    $("warning-title").textContent = r.body.warning.title;
    $("warning-message").textContent = r.body.warning.message;
    $("warning").hidden = false;
    return;
  }
  say(r.body.error, true);
}

async function simple(op, data) {
  const r = await api(op, data);
  if (r.ok) show(r.body); else say(r.body.error, true);
  return r;
}

async function runCommand(name) {
  // Find Trash: the first click asks, the next ones cycle through what it found.
  if (picks.length && pickAt > 0) {
    select(picks[pickAt % picks.length], toolText);
    pickAt += 1;
    return;
  }
  const r = await api("tool", { name });
  if (!r.ok) return say(r.body.error, true);
  show(r.body, true);
  toolText = r.body.tool.text;
  picks = r.body.tool.picks;
  pickAt = 0;
  if (picks.length) { select(picks[0], toolText); pickAt = 1; } else say(toolText);
}

function stopWatching() {
  if (watching) watching.close();
  watching = null;
  $("watch").textContent = "Watch the bots";
}

// Watching: the server pushes every position over a WebSocket as the bots play it.
function startWatching() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/ws");
  watching = ws;
  $("watch").textContent = "Stop watching";
  ws.onopen = () => ws.send(JSON.stringify({ op: "watch" }));
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.status !== 200) { say(m.error, true); return stopWatching(); }
    show(m.view);
    if (m.view.over) stopWatching();
  };
  ws.onerror = () => { say("the connection to the server was lost", true); stopWatching(); };
}

window.addEventListener("DOMContentLoaded", async () => {
  const r = await api("state");
  show(r.body);
  $("game").onchange = fillPlayers;
  $("players").onchange = fillSeats;
  $("new-form").onsubmit = (e) => {
    e.preventDefault();
    stopWatching();
    const data = { game: $("game").value, players: +$("players").value, seat: +$("seat").value,
                   opponents: $("opponents").value, hint_bot: $("hint-bot").value };
    if ($("seed").value !== "") data.seed = +$("seed").value;
    simple("new", data);
  };
  $("hint").onclick = async () => {
    const h = await api("hint");
    if (!h.ok) return say(h.body.error, true);
    show(h.body, true);
    const hint = h.body.hint;
    say("Hint (" + hint.bot + "): " + hint.number + ". " + hint.label + (hint.reason ? " (" + hint.reason + ")" : ""));
    document.querySelectorAll("#moves button").forEach((b) => b.classList.toggle("hinted", +b.dataset.action === hint.action));
    // The hint points at the card on the table too, not only at the button.
    document.querySelectorAll("#table .move").forEach((g) => g.classList.toggle("hinted", +g.dataset.action === hint.action));
  };
  $("quick").onclick = () => simple("quick");
  $("quick-select").onclick = async () => {
    const h = await api("hint");
    if (!h.ok) return say(h.body.error, true);
    show(h.body, true);
    select(h.body.hint.action);
    if (h.body.hint.reason) say("Selected: " + h.body.hint.label + " (" + h.body.hint.reason + ")");
  };
  $("undo").onclick = () => simple("undo");
  $("redo").onclick = () => simple("redo");
  $("save").onclick = async () => {
    const name = $("save-name").value;
    const r = await simple("save", { name });
    if (r.ok) say("Saved as " + r.body.saves.find((s) => s === name || s === name + ".json") + ".");
  };
  $("load").onclick = () => { stopWatching(); simple("load", { name: $("saves").value }); };
  $("watch").onclick = () => {
    if (watching) return stopWatching();
    if (view && view.game && !view.over) startWatching();
  };
  $("warn-yes").onclick = () => { $("warning").hidden = true; play(pending, true); };
  $("warn-no").onclick = () => { $("warning").hidden = true; say("Not played."); };
});
