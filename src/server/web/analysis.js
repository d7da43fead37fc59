// The analysis board (/analysis): any game or position, pasted or a finished game of the
// server's (?game=ID), looked at move by move. The server reads the game and says what the
// position is; the engine's lines deepen while the position stays (each answer with its
// depth@probability, every legal move's value on its square); the graph scores every move;
// the opening explorer shows the games that went this way. The link carries the game and
// the move looked at.

import { api } from "./api.js";
import { Board } from "./board.js";
import { drawGraph } from "./graph.js";

const $ = (selector) => document.querySelector(selector);

/** The engine's time for each deepening step, in milliseconds (a guest's longest is 5 s). */
const STEPS = [150, 600, 2000, 5000];

/** The game as the server has it: what each request sends. */
let source = null;
/** The position shown. */
let view = null;
/** One more each time the position changes: a late answer for another one is dropped. */
let generation = 0;
let board = null;
let graph = { moves: 0, scores: [] };
/** Called off when the position shown changes: the engine stops what nobody will read. */
let linesAbort = new AbortController();
/** Called off when the game changes (the graph is the game's, whatever the position). */
let graphAbort = new AbortController();

/** How many times a request the server was too busy for is asked again. */
const RETRIES = 5;

/**
 * `api` for the engine's work, called off by `abort`, and asked again after the server's
 * `Retry-After` while it is busy (and still wanted).
 */
async function engineApi(path, body, abort) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await api("POST", path, { body, signal: abort.signal });
    } catch (failure) {
      if (abort.signal.aborted || failure.status !== 503 || attempt >= RETRIES) throw failure;
      await new Promise((resolve) => setTimeout(resolve, 1000 * (failure.retryAfter || 2)));
      if (abort.signal.aborted) throw failure;
    }
  }
}

function settings() {
  const form = $("#analysis-form");
  return {
    rules: form.elements.rules.value,
    rows: Number(form.elements.rows.value),
    columns: Number(form.elements.columns.value),
    first: form.elements.first.value,
    win: form.elements.win.value,
  };
}

function request(extra = {}) {
  return { ...source, ...extra };
}

function showError(message) {
  const error = $("#analysis-error");
  error.textContent = message;
  error.hidden = !message;
}

/** One more for each position asked for: only the latest answer is shown. */
let asked = 0;

/** Shows the position after `ply` moves of the game. */
async function go(ply, move = null) {
  showError("");
  const ticket = ++asked;
  let next;
  try {
    next = await api("POST", "/api/analysis", { body: request(move ? { ply, play: move } : { ply }) });
  } catch (failure) {
    if (ticket === asked) showError(failure.message);
    return;
  }
  if (ticket !== asked) return;
  if (move) {
    // A move played on the board: a new line from here (the moves after it dropped).
    source = { position: next.record };
    graph = { moves: 0, scores: [] };
  }
  view = next;
  render();
}

function render() {
  generation += 1;
  const mine = generation;
  linesAbort.abort();
  linesAbort = new AbortController();
  board.render({ ...view, interactive: view.status === "playing", flipped: [] }, false);
  board.setHints([]);
  const toMove = view.to_move === "B" ? "Black" : view.to_move === "W" ? "White" : null;
  $("#analysis-status").textContent = toMove
    ? `Move ${view.ply + 1}: ${toMove} to move · ${view.counts.B}–${view.counts.W}`
    : `Over · ${view.counts.B}–${view.counts.W}${view.winner === "none" ? " draw" : view.winner ? ` ${view.winner === "B" ? "Black" : "White"} wins` : ""}`;
  $("#analysis-link").value = view.url;
  history.replaceState(null, "", new URL(view.url).pathname + new URL(view.url).search);
  renderMoves();
  $("#analysis-lines").textContent = "";
  $("#analysis-depth").textContent = "";
  if (view.status === "playing") deepen(mine, 0);
  renderGraph();
  explore(mine);
}

function renderMoves() {
  const list = $("#analysis-moves");
  list.textContent = "";
  view.moves.forEach((move, index) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = move;
    button.className = index + 1 === view.ply ? "current" : "";
    button.addEventListener("click", () => go(index + 1));
    item.append(button);
    list.append(item);
  });
}

/** "13@73%" or "exact". */
function depthText(lines) {
  return lines.exact ? "exact" : `${lines.depth}@${lines.selectivity}%`;
}

function score(value) {
  return value > 0 ? `+${value}` : `${value}`;
}

/** The engine's lines, each step deeper, until exact or the position changes. */
async function deepen(mine, step) {
  if (step >= STEPS.length || mine !== generation) return;
  let lines;
  try {
    lines = await engineApi("/api/analysis/lines", request({ ply: view.ply, time_ms: STEPS[step] }), linesAbort);
  } catch (failure) {
    if (mine === generation && !linesAbort.signal.aborted) $("#analysis-depth").textContent = failure.message;
    return;
  }
  if (mine !== generation) return;
  $("#analysis-depth").textContent = `${depthText(lines)} · ${lines.evaluation}`;
  const list = $("#analysis-lines");
  list.textContent = "";
  for (const line of lines.moves) {
    const item = document.createElement("li");
    item.textContent = `${line.move} ${score(line.score)}${line.exact ? "" : "?"}: ${line.pv.join(" ")}`;
    list.append(item);
  }
  board.setHints(
    lines.moves
      .filter((line) => line.move !== "pass")
      .map((line, index) => ({ square: line.move, rank: index + 1, score: score(Math.round(line.score)) })),
  );
  if (!lines.exact) deepen(mine, step + 1);
}

/** The graph: the scores known, then the rest as they come. */
async function renderGraph() {
  const container = $("#analysis-graph");
  const draw = () => drawGraph(container, graph, (ply) => go(ply), view.ply);
  if (graph.moves === view.moves.length && graph.scores.length === view.moves.length) {
    draw();
    return;
  }
  graph = { moves: view.moves.length, scores: [] };
  graphAbort.abort();
  graphAbort = new AbortController();
  const mine = source;
  const abort = graphAbort;
  while (graph.scores.length < graph.moves) {
    let part;
    try {
      part = await engineApi("/api/analysis/graph", request({ from: graph.scores.length }), abort);
    } catch {
      return;
    }
    if (mine !== source) return;
    graph.scores.push(...part.scores.map((point) => ({ ...point, move: view.moves[point.ply - 1] })));
    draw();
    if (part.complete) break;
  }
}

/** The opening explorer's moves from here, for a game it knows. */
async function explore(mine) {
  const table = $("#analysis-explorer tbody");
  table.textContent = "";
  $("#analysis-explorer-box").hidden = view.explorer === null;
  if (view.explorer === null) return;
  let found;
  try {
    const moves = view.moves.slice(0, view.ply).join("");
    found = await api("GET", `/api/explorer?size=${view.explorer}&moves=${moves}`);
  } catch {
    return;
  }
  if (mine !== generation) return;
  // No game of the explorer's reached this position: nothing to show.
  $("#analysis-explorer-box").hidden = found.total === 0;
  $("#analysis-explorer-games").textContent = `${found.games} game${found.games === 1 ? "" : "s"} reached this position`;
  for (const next of found.next) {
    const row = table.insertRow();
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = next.move;
    button.addEventListener("click", () => go(view.ply, next.move));
    row.insertCell().append(button);
    row.insertCell().textContent = next.games;
    row.insertCell().textContent = `${next.black_score}%`;
    row.insertCell().textContent = score(next.average);
  }
}

async function load(body) {
  source = body;
  graph = { moves: 0, scores: [] };
  const params = new URLSearchParams(location.search);
  const ply = params.has("ply") && body === initial ? Number(params.get("ply")) : undefined;
  await go(ply);
}

let initial = null;

export function showAnalysis() {
  $("#analysis-page").hidden = false;
  document.title = "Analysis — Othello";
  board = new Board($("#analysis-board"), (square) => go(view.ply, square));
  const form = $("#analysis-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = form.elements.position.value.trim();
    load(text ? { position: text, ...settings() } : { position: "", ...settings() });
  });
  $("#analysis-first").addEventListener("click", () => view && go(0));
  $("#analysis-back").addEventListener("click", () => view && go(Math.max(0, view.ply - 1)));
  $("#analysis-forward").addEventListener("click", () => view && go(Math.min(view.moves.length, view.ply + 1)));
  $("#analysis-last").addEventListener("click", () => view && go(view.moves.length));
  const params = new URLSearchParams(location.search);
  if (params.get("game")) initial = { game: params.get("game") };
  else if (params.get("position") !== null) initial = { position: params.get("position") };
  else initial = { position: "", ...settings() };
  load(initial);
}
