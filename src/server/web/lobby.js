// The lobby (the home page): post a challenge, accept or withdraw one, play the computer
// in one click, watch games being played and see those just finished, all live over the
// lobby's WebSocket; a challenge's own page (/s/ID, for a link); and the account box in the
// header (log in, register, log out).

import { api, session } from "./api.js";
import { clockText } from "./clock.js";
import { describeGame } from "./words.js";
import { renderTournaments, showTournamentForm } from "./tournament.js";

const $ = (selector) => document.querySelector(selector);
const NAMES = { B: "Black", W: "White", random: "random colour" };

/** The guest secrets of the challenges this browser posted: id -> secret. */
function ownSeeks() {
  try {
    return JSON.parse(localStorage.getItem("seeks") || "{}");
  } catch {
    return {};
  }
}

function keepSeek(id, secret) {
  const seeks = ownSeeks();
  seeks[id] = secret;
  localStorage.setItem("seeks", JSON.stringify(seeks));
}

function guestName() {
  return localStorage.getItem("name") || "";
}

function link(href, text) {
  const anchor = document.createElement("a");
  anchor.href = href;
  anchor.textContent = text;
  anchor.dir = "auto";
  return anchor;
}

/** A name as its own bidirectional island: a right-to-left override in it cannot turn
 * the text around it. */
export function isolated(name) {
  return `\u2068${name}\u2069`;
}

function person(name, member) {
  return member ? link(`/u/${encodeURIComponent(name)}`, name) : document.createTextNode(`${isolated(name)} (guest)`);
}

/** A challenge's poster, with their rating for it when they have one: "ann (1338?)". */
function poster(seek) {
  const who = document.createDocumentFragment();
  if (seek.bot) who.append("BOT ");
  who.append(person(seek.poster, seek.member));
  if (seek.rating !== null && seek.rating !== undefined) who.append(` (${seek.rating}${seek.provisional ? "?" : ""})`);
  return who;
}

// ---------------------------------------------------------------- the account box

export function showAccount() {
  const box = $("#account");
  box.textContent = "";
  if (session.user) {
    box.append("Signed in as ", link(`/u/${encodeURIComponent(session.user.name)}`, session.user.name), " ");
    const out = document.createElement("button");
    out.type = "button";
    out.textContent = "Log out";
    out.addEventListener("click", async () => {
      await api("DELETE", "/api/session");
      location.reload();
    });
    box.append(out);
    return;
  }
  for (const [label, path] of [["Log in", "/api/session"], ["Register", "/api/accounts"]]) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    button.addEventListener("click", () => openLogin(label, path));
    box.append(button, " ");
  }
}

function openLogin(label, path) {
  const dialog = $("#login");
  dialog.querySelector("h2").textContent = label;
  dialog.querySelector("button[type=submit]").textContent = label;
  const form = dialog.querySelector("form");
  const error = dialog.querySelector(".error");
  error.hidden = true;
  form.onsubmit = async (event) => {
    event.preventDefault();
    if (event.submitter && event.submitter.value === "cancel") {
      dialog.close();
      return;
    }
    try {
      await api("POST", path, { body: { name: form.elements.name.value, password: form.elements.password.value } });
      location.reload();
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    }
  };
  dialog.showModal();
  form.elements.name.focus();
}

// ---------------------------------------------------------------- the lobby

export function showLobby() {
  $("#lobby").hidden = false;
  const form = $("#seek-form");
  form.elements.name.value = guestName();
  $("#seek-name").hidden = Boolean(session.user);
  form.elements.rated.disabled = !session.user;
  $("#rated-note").hidden = Boolean(session.user);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    postSeek(form);
  });
  $("#play-computer").addEventListener("click", playComputer);
  showTournamentForm();
  $("#computer-rated-label").hidden = !session.user;
  connectLobby(500);
  if (session.user) {
    showTurn();
    setInterval(showTurn, TURN_EVERY_MS);
  }
}

/** How often the home page asks again which games wait for the member's move. */
const TURN_EVERY_MS = 30000;

/** "Your turn": a member's games waiting for their move, the most pressing first. */
async function showTurn() {
  let turn;
  try {
    turn = await api("GET", "/api/me/turn");
  } catch {
    return;
  }
  renderTurn($("#turn-list"), turn.games);
}

/** A list of games waiting for a player's move: opponent, game, and the time left. */
export function renderTurn(list, games) {
  list.textContent = "";
  for (const game of games) {
    const item = document.createElement("li");
    let text = `vs ${isolated(game.opponent)}, ${describeGame(game)}, move ${game.moves + 1}`;
    if (game.deadline !== null) text += `: ${clockText(game.deadline - Date.now())} left`;
    item.append(link(game.url, text));
    list.append(item);
  }
  list.parentElement.hidden = games.length === 0;
}

async function playComputer() {
  const level = Number($("#computer-level").value);
  // Each board and rule its own game (and rating pool); the engine's learned evaluation
  // where one was trained for it.
  const [rules, rows, columns, win] = $("#computer-game").value.split(":");
  const body = { white: `engine:${level}`, time_ms: 1000, rules, rows: Number(rows), columns: Number(columns), win };
  const name = session.user ? session.user.name : guestName();
  if (name) body.black_name = name;
  if (session.user && $("#computer-rated").checked) {
    body.rated = true;
    body.clock = { base_ms: 300000, increment_ms: 3000 };
  }
  try {
    const created = await api("POST", "/api/games", { body });
    // A member's account opens their seat; a guest's link carries its secret.
    location.assign(created.seats.black.url || created.spectator_url);
  } catch (failure) {
    $("#lobby-error").textContent = failure.message;
    $("#lobby-error").hidden = false;
  }
}

async function postSeek(form) {
  const error = $("#seek-error");
  error.hidden = true;
  const body = {
    rules: form.elements.rules.value,
    rows: Number(form.elements.rows.value),
    columns: Number(form.elements.columns.value),
    first: form.elements.first.value,
    win: form.elements.win.value,
    color: form.elements.color.value,
    rated: form.elements.rated.checked,
    help: form.elements.help.checked,
    private: form.elements.private.checked,
  };
  const control = form.elements.control.value;
  if (control.startsWith("days:")) {
    body.clock = { days: Number(control.slice(5)) };
  } else if (control !== "none") {
    const [minutes, increment] = control.split("+").map(Number);
    body.clock = { base_ms: minutes * 60000, increment_ms: increment * 1000 };
  }
  if (form.elements.to.value.trim()) body.to = form.elements.to.value.trim();
  if (!session.user) {
    const name = form.elements.name.value.trim();
    if (name) {
      body.name = name;
      localStorage.setItem("name", name);
    }
  }
  try {
    const posted = await api("POST", "/api/seeks", { body });
    if (posted.secret) keepSeek(posted.seek.id, posted.secret);
    if (body.private) {
      $("#seek-link").value = posted.seek.url;
      $("#seek-link-box").hidden = false;
    }
    // A guest's lobby channel needs the new secret to learn when it is taken.
    if (posted.secret && lobbySocket) lobbySocket.close();
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
  }
}

let lobbySocket = null;

function connectLobby(retry) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/lobby/events`);
  lobbySocket = socket;
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify({ type: "hello", secrets: Object.values(ownSeeks()) }));
    $("#connection").textContent = "live";
    $("#connection").className = "connection live";
    retry = 500;
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "lobby") {
      renderLobby(message.lobby);
      if (session.user) showTurn();
    }
  });
  socket.addEventListener("close", () => {
    $("#connection").textContent = "reconnecting…";
    $("#connection").className = "connection down";
    setTimeout(() => connectLobby(Math.min(retry * 2, 8000)), retry);
  });
}

function renderLobby(lobby) {
  // One of this browser's challenges was taken: to the game, once (the server lists it
  // for a while; coming back to the lobby must not lead there again).
  const own = ownSeeks();
  const gone = JSON.parse(localStorage.getItem("matched") || "[]");
  for (const { seek, game } of lobby.matched) {
    if (gone.includes(seek)) continue;
    const secret = own[seek];
    delete own[seek];
    localStorage.setItem("seeks", JSON.stringify(own));
    localStorage.setItem("matched", JSON.stringify([...gone, seek].slice(-50)));
    location.assign(secret ? `/g/${game}#secret=${secret}` : `/g/${game}`);
    return;
  }
  const table = $("#seeks tbody");
  table.textContent = "";
  for (const seek of lobby.seeks) {
    const row = table.insertRow();
    row.dataset.seek = seek.id;
    row.insertCell().append(poster(seek));
    row.insertCell().textContent = describeGame(seek);
    const plays = seek.color === "random" ? "random" : `plays ${NAMES[seek.color]}`;
    const extras = [plays];
    if (seek.to) extras.push(`for ${seek.to}`);
    if (seek.help) extras.push("help on");
    if (seek.private) extras.push("by link");
    const about = row.insertCell();
    about.textContent = extras.join(", ");
    // One's own challenge by link: the link again, to send (it is listed nowhere else).
    if (seek.mine && seek.private) {
      const url = document.createElement("input");
      url.className = "seek-url";
      url.readOnly = true;
      url.value = seek.url;
      url.setAttribute("aria-label", "the challenge's link");
      url.addEventListener("focus", () => url.select());
      about.append(" ", url);
    }
    const action = row.insertCell();
    const button = document.createElement("button");
    button.type = "button";
    if (seek.mine) {
      button.textContent = "Withdraw";
      button.addEventListener("click", () => withdraw(seek.id));
    } else {
      button.textContent = "Accept";
      button.className = "primary";
      button.addEventListener("click", () => accept(seek.id));
    }
    action.append(button);
  }
  $("#no-seeks").hidden = lobby.seeks.length > 0;
  renderTournaments($("#tournament-list"), lobby.tournaments);
  $("#no-tournaments").hidden = lobby.tournaments.length > 0;
  renderGames($("#playing-list"), lobby.playing, false);
  renderGames($("#finished-list"), lobby.finished, true);
}

function renderGames(list, games, over) {
  list.textContent = "";
  for (const game of games) {
    const item = document.createElement("li");
    let text = `${isolated(game.black)} vs ${isolated(game.white)}, ${describeGame(game)}`;
    if (over) {
      const result = game.winner === "none" ? "draw" : game.winner ? `${NAMES[game.winner]} won` : "aborted";
      const how = game.ending && game.ending !== "abort" ? ` (${{ resign: "resigned", time: "on time", abandon: "abandoned", no_first_move: "no first move" }[game.ending]})` : "";
      text += `: ${result}${how}`;
    }
    item.append(link(`/g/${game.id}`, text));
    list.append(item);
  }
  list.parentElement.hidden = games.length === 0;
}

async function accept(id, error = $("#lobby-error")) {
  const body = {};
  if (!session.user && guestName()) body.name = guestName();
  try {
    const taken = await api("POST", `/api/seeks/${id}/accept`, { body });
    location.assign(taken.url);
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
  }
}

async function withdraw(id) {
  try {
    await api("DELETE", `/api/seeks/${id}`, { secret: ownSeeks()[id] });
  } catch (failure) {
    $("#lobby-error").textContent = failure.message;
    $("#lobby-error").hidden = false;
  }
}

// ---------------------------------------------------------------- a challenge's own page

export async function showSeek(id) {
  $("#seek-page").hidden = false;
  try {
    const seek = await api("GET", `/api/seeks/${id}`);
    const text = $("#seek-text");
    text.textContent = "";
    text.append(poster(seek), ` challenges you: ${describeGame(seek)}, ${seek.color === "random" ? "colours drawn" : `they play ${NAMES[seek.color]}`}.`);
    const button = $("#seek-accept");
    button.hidden = seek.mine;
    button.addEventListener("click", () => accept(id, $("#seek-page-error")));
  } catch (failure) {
    $("#seek-text").textContent = failure.message;
  }
}
