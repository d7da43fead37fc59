// Tournaments: the lobby's list and its form (members make one), and a tournament's page
// (/t/ID): what is played, its standings and every round's games, live over its
// WebSocket; Join, Withdraw, and Start now for its maker.

import { api, session } from "./api.js";
import { clockText } from "./clock.js";
import { describeGame } from "./words.js";

const $ = (selector) => document.querySelector(selector);

function link(href, text) {
  const anchor = document.createElement("a");
  anchor.href = href;
  anchor.textContent = text;
  anchor.dir = "auto";
  return anchor;
}

/** "Swiss, 5 rounds" or "arena, 30 minutes". */
function systemText(tournament) {
  return tournament.system === "swiss"
    ? `Swiss, ${tournament.rounds} round${tournament.rounds === 1 ? "" : "s"}`
    : `arena, ${tournament.minutes} minute${tournament.minutes === 1 ? "" : "s"}`;
}

/** Where it is, in words: "starts in 4m 59s", "round 2 of 5", "over". */
function stageText(tournament) {
  const now = Date.now();
  if (tournament.stage === "created") {
    const left = tournament.starts_at - now;
    return left > 0 ? `starts in ${clockText(left)}` : "starting";
  }
  if (tournament.stage === "finished") return tournament.called_off ? "called off" : "over";
  if (tournament.system === "swiss") return `round ${tournament.round} of ${tournament.rounds}`;
  const left = tournament.ends_at - now;
  return left > 0 ? `${clockText(left)} left` : "last games";
}

/** A time of day in the reader's clock: "14:05". */
function timeOfDay(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** Where it is, for a list that is not redrawn every second: "starts at 14:05". */
function listedStage(tournament) {
  if (tournament.stage === "created") return `starts at ${timeOfDay(tournament.starts_at)}`;
  if (tournament.stage === "running" && tournament.system === "arena") return `until ${timeOfDay(tournament.ends_at)}`;
  return stageText(tournament);
}

/** The lobby's list: one line each, a link to its page. */
export function renderTournaments(list, tournaments) {
  list.textContent = "";
  for (const tournament of tournaments) {
    const item = document.createElement("li");
    const players = `${tournament.players} player${tournament.players === 1 ? "" : "s"}`;
    const text = `${tournament.name}: ${systemText(tournament)}, ${describeGame(tournament)}, ${players}, ${listedStage(tournament)}`;
    item.append(link(`/t/${tournament.id}`, text));
    if (tournament.joined) item.append(" (you play)");
    list.append(item);
  }
}

/** The lobby's form: members only. */
export function showTournamentForm() {
  $("#tournament-new").hidden = !session.user;
  $("#tournament-note").hidden = Boolean(session.user);
  const form = $("#tournament-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = $("#tournament-form-error");
    error.hidden = true;
    const [minutes, increment] = form.elements.control.value.split("+").map(Number);
    const body = {
      system: form.elements.system.value,
      rules: form.elements.rules.value,
      rows: Number(form.elements.rows.value),
      columns: Number(form.elements.columns.value),
      win: form.elements.win.value,
      clock: { base_ms: minutes * 60000, increment_ms: increment * 1000 },
      rated: form.elements.rated.checked,
      starts_in_s: Number(form.elements.starts.value) * 60,
    };
    if (body.system === "swiss") body.rounds = Number(form.elements.rounds.value);
    else body.minutes = Number(form.elements.minutes.value);
    if (form.elements.name.value.trim()) body.name = form.elements.name.value.trim();
    try {
      const made = await api("POST", "/api/tournaments", { body });
      location.assign(`/t/${made.id}`);
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    }
  });
}

let current = null;

/** The line that says where it is (counted down every second between changes). */
function renderState(tournament) {
  const line = `${stageText(tournament)} · ${tournament.players} player${tournament.players === 1 ? "" : "s"}`;
  if ($("#tournament-state").textContent !== line) $("#tournament-state").textContent = line;
}

function render(tournament) {
  current = tournament;
  document.title = `${tournament.name} — Othello`;
  $("#tournament-name").textContent = tournament.name;
  $("#tournament-about").textContent =
    `${systemText(tournament)} · ${describeGame(tournament)} · made by ${tournament.created_by}`;
  renderState(tournament);
  const member = Boolean(session.user);
  const open = tournament.stage === "created" || (tournament.system === "arena" && tournament.stage === "running");
  $("#tournament-join").hidden = !member || tournament.joined || !open;
  $("#tournament-withdraw").hidden = !member || !tournament.joined || tournament.stage === "finished";
  $("#tournament-start").hidden = !tournament.mine || tournament.stage !== "created";
  $("#tournament-call-off").hidden = !tournament.mine || tournament.stage !== "created";
  const body = $("#tournament-standings tbody");
  body.textContent = "";
  for (const row of tournament.standings) {
    const line = body.insertRow();
    line.insertCell().textContent = row.rank;
    const who = line.insertCell();
    if (row.bot) who.append("BOT ");
    who.append(link(`/u/${encodeURIComponent(row.name)}`, row.name));
    if (row.rating !== null) who.append(` (${row.rating}${row.provisional ? "?" : ""})`);
    if (row.withdrawn) who.append(" · withdrew");
    line.insertCell().textContent = row.points;
    line.insertCell().textContent = row.buchholz;
    line.insertCell().textContent = row.discs;
    line.insertCell().textContent = `${row.wins}–${row.draws}–${row.losses}${row.byes ? ` (+${row.byes} bye)` : ""}`;
    const playing = line.insertCell();
    if (row.playing) playing.append(link(`/g/${row.playing}`, "playing"));
  }
  const rounds = $("#tournament-rounds");
  rounds.textContent = "";
  for (const round of [...tournament.rounds_played].reverse()) {
    const title = document.createElement("h2");
    title.textContent = tournament.system === "swiss" ? `Round ${round.round}` : `Wave ${round.round}`;
    const list = document.createElement("ul");
    list.className = "tournament-games";
    for (const game of round.games) {
      const item = document.createElement("li");
      const result = game.result ? ` ${game.result}${game.discs ? ` (${game.discs[0]}–${game.discs[1]})` : ""}` : " playing";
      item.append(link(`/g/${game.game}`, `${game.black} – ${game.white}`), result);
      list.append(item);
    }
    if (round.bye) {
      const item = document.createElement("li");
      item.textContent = `${round.bye}: bye`;
      list.append(item);
    }
    rounds.append(title, list);
  }
}

async function act(what) {
  const error = $("#tournament-error");
  error.hidden = true;
  try {
    render(
      what === "call-off"
        ? await api("DELETE", `/api/tournaments/${current.id}`)
        : await api("POST", `/api/tournaments/${current.id}/${what}`, { body: {} }),
    );
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
  }
}

function connect(id, retry) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/tournaments/${id}/events`);
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify({ type: "hello" }));
    $("#connection").textContent = "live";
    $("#connection").className = "connection live";
    retry = 500;
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "tournament") render(message.tournament);
  });
  socket.addEventListener("close", () => {
    $("#connection").textContent = "reconnecting…";
    $("#connection").className = "connection down";
    setTimeout(() => connect(id, Math.min(retry * 2, 8000)), retry);
  });
}

export async function showTournament(id) {
  $("#tournament-page").hidden = false;
  try {
    render(await api("GET", `/api/tournaments/${id}`));
  } catch (failure) {
    $("#tournament-name").textContent = failure.message;
    for (const part of $("#tournament-page").querySelectorAll("h2, table, p")) part.hidden = true;
    return;
  }
  $("#tournament-join").addEventListener("click", () => act("join"));
  $("#tournament-withdraw").addEventListener("click", () => act("withdraw"));
  $("#tournament-start").addEventListener("click", () => act("start"));
  $("#tournament-call-off").addEventListener("click", () => {
    if (window.confirm("Call this tournament off?")) act("call-off");
  });
  // The time to the start, or to an arena's end, counts down between changes.
  setInterval(() => current && renderState(current), 1000);
  connect(id, 500);
}
