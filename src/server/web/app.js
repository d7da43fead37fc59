// The page: the new-game form, and a game as the server describes it. Every rule is the
// server's: this script sends what a person does and draws the states it gets back (over
// HTTP, and live over a WebSocket).

import { api, loadSession } from "./api.js";
import { Board } from "./board.js";
import { drawGraph } from "./graph.js";
import { isolated, showAccount, showLobby, showSeek } from "./lobby.js";
import { Clocks } from "./clock.js";
import { describeGame } from "./words.js";
import { showPlayer } from "./player.js";
import { showPuzzles } from "./puzzle.js";
import { showTournament } from "./tournament.js";
import { showAnalysis } from "./analysis.js";

const $ = (selector) => document.querySelector(selector);
const NAMES = { B: "Black", W: "White" };
const OTHER = { B: "W", W: "B" };


// ---------------------------------------------------------------- the new-game form

// The seats' menus of players, and the field of each kind that takes a number (a depth, a
// level, playouts), come with the page: the server writes them from the library's list.
function seatSpec(form, seat) {
  const kind = form.elements[`${seat}-kind`].value;
  const number = form.querySelector(`.seat[data-seat="${seat}"] [data-kind="${kind}"] input`);
  return number ? `${kind}:${number.value}` : kind;
}

// The nets `zero` plays with, as the server describes them (asked for once, when a seat
// first picks zero): beside the seat, the curve of how the net for the chosen board learned.
let zeroNets = null;

// Halves up to a tenth, as the command line prints them (`tenths_of_percent`).
function percent(share) {
  return `${(Math.round(share * 1000 + 1e-6) / 10).toFixed(1)} %`;
}

async function showZeroNets(form) {
  const figures = [...form.querySelectorAll(".seat")]
    .filter((fieldset) => fieldset.querySelector(".seat-kind").value === "zero")
    .map((fieldset) => fieldset.querySelector(".zero-net"));
  if (figures.length === 0) return;
  if (zeroNets === null) {
    try {
      zeroNets = (await api("GET", "/api/zero/nets")).nets;
    } catch (failure) {
      for (const figure of figures) figure.querySelector("figcaption").textContent = failure.message;
      return;
    }
  }
  const pasted = form.elements.start.value === "pasted";
  const rules = form.elements.rules.value;
  const rows = Number(form.elements.rows.value);
  const columns = Number(form.elements.columns.value);
  const win = form.elements.win.value;
  const shipped = zeroNets.map((net) => net.game).join(", ") || "none";
  // A size being typed (an empty or out-of-range field) names no board yet.
  const sized = [rows, columns].every((n) => Number.isInteger(n) && n >= 4 && n <= 16);
  const net = pasted ? null : zeroNets.find((net) => net.rules === rules && net.rows === rows && net.columns === columns && net.win === win);
  for (const figure of figures) {
    const link = figure.querySelector(".zero-curve-link");
    const caption = figure.querySelector("figcaption");
    link.hidden = net === undefined || net === null;
    if (!net) {
      caption.textContent = !pasted && !sized ? "" : pasted
        ? `zero plays only a board it has a net for (${shipped}).`
        : `No net is shipped for ${rows}x${columns} ${rules.toUpperCase()} ${win}: zero plays ${shipped}.`;
      continue;
    }
    link.href = net.curve;
    link.querySelector("img").src = net.curve;
    link.querySelector("img").alt = `How the ${net.game} net learned, iteration by iteration`;
    const exact = net.exact_share === null ? "" : `; ${percent(net.exact_share)} of its moves keep the exact game value (${net.exact_positions} positions solved)`;
    const sameGames = net.levels.every((row) => row.games === net.levels[0].games);
    const levels = net.levels.length === 0 ? "" : `; against the engine's hand-written evaluation, ${net.levels.map((row) => `${percent(row.score)} against classic:${row.level}${sameGames ? "" : ` (${row.games} games)`}`).join(", ")}${sameGames ? ` (${net.levels[0].games} games each)` : ""}`;
    caption.textContent = `How it learned: a ${net.channels} × ${net.blocks} residual net, ${net.iterations} iterations of self-play (${net.minutes} minutes on two cores); the net it plays is iteration ${net.best}'s. ` +
      `The run's last check: ${percent(net.vs_random)} against random and ${percent(net.vs_greedy)} against greedy over ${net.games} games each${levels}${exact}.`;
  }
}

function updateForm(form) {
  for (const fieldset of form.querySelectorAll(".seat")) {
    const kind = fieldset.querySelector(".seat-kind").value;
    for (const number of fieldset.querySelectorAll("[data-kind]")) {
      number.hidden = number.dataset.kind !== kind;
    }
    fieldset.querySelector(".computer-only").hidden = kind === "human";
  }
  const pasted = form.elements.start.value === "pasted";
  $("#position-label").hidden = !pasted;
  const bots = form.elements["black-kind"].value !== "human" && form.elements["white-kind"].value !== "human";
  $("#speed-label").hidden = !bots;
  const people = form.elements["black-kind"].value === "human" && form.elements["white-kind"].value === "human";
  $("#help-label").hidden = !people;
  showZeroNets(form);
}

function showForm() {
  document.title = "Othello";
  $("#new-game").hidden = false;
  const form = $("#new-game-form");
  form.addEventListener("change", () => updateForm(form));
  updateForm(form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = $("#form-error");
    error.hidden = true;
    const request = {
      rules: form.elements.rules.value,
      rows: Number(form.elements.rows.value),
      columns: Number(form.elements.columns.value),
      first: form.elements.first.value,
      win: form.elements.win.value,
      black: seatSpec(form, "black"),
      white: seatSpec(form, "white"),
      black_time_ms: Number(form.elements["black-time"].value),
      white_time_ms: Number(form.elements["white-time"].value),
      speed_ms: Number(form.elements.speed.value),
      help: form.elements.help.checked,
    };
    if (form.elements.start.value === "pasted") {
      request.position = form.elements.position.value;
      // A pasted game states its own size, first mover and win rule.
      delete request.rows;
      delete request.columns;
      delete request.first;
      delete request.win;
    }
    try {
      const created = await api("POST", "/api/games", { body: request });
      // Kept in this browser (every tab, after a restart), for the link to send.
      localStorage.setItem(`invite:${created.id}`, JSON.stringify(created.seats));
      const own = created.seats.black.url || created.seats.white.url || (created.control && created.control.url) || created.spectator_url;
      location.assign(own);
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    }
  });
}

// ---------------------------------------------------------------- a game

class GameView {
  constructor(id, secrets) {
    this.id = id;
    this.secret = secrets.secret || null;
    this.control = secrets.control || null;
    this.state = null;
    this.review = null;
    this.graphVersion = -1;
    this.hintVersion = null;
    this.retry = 500;
    this.board = new Board(
      $("#board"),
      (square) => this.play(square),
      (square) => this.briefly(`${square} is not a legal move`),
    );
    $("#show-legal").addEventListener("change", (event) => this.board.setShowLegal(event.target.checked));
    $("#hint-button").addEventListener("click", () => this.hint());
    $("#undo-button").addEventListener("click", () => this.undo("request"));
    $("#redo-button").addEventListener("click", () => this.redo());
    $("#resign-button").addEventListener("click", () => this.resign());
    $("#abort-button").addEventListener("click", () => this.act("POST", `/api/games/${this.id}/abort`, {}));
    $("#claim-button").addEventListener("click", () => this.act("POST", `/api/games/${this.id}/claim`, {}));
    $("#rematch-button").addEventListener("click", () => this.act("POST", `/api/games/${this.id}/rematch`, {}));
    this.clocks = new Clocks({ B: $("#clock-B"), W: $("#clock-W") }, $("#first-move"));
    const sound = $("#sound");
    sound.checked = localStorage.getItem("sound") === "on";
    sound.addEventListener("change", () => localStorage.setItem("sound", sound.checked ? "on" : "off"));
    // Back on the page: the title says the score again.
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && this.state) this.setTitle(this.state);
    });
    for (const button of document.querySelectorAll("#undo-request button")) {
      button.addEventListener("click", () => this.undo(button.dataset.action));
    }
    $("#pause-button").addEventListener("click", () => this.controlGame({ paused: !this.state.paused }));
    $("#step-button").addEventListener("click", () => this.controlGame({ step: true }));
    $("#speed-input").addEventListener("change", (event) => this.controlGame({ speed_ms: Number(event.target.value) }));
    const exports = $("#export");
    for (const [format, label] of [["transcript", "transcript"], ["ggf", "GGF"], ["record", "record"], ["grader", "grader .in"]]) {
      const link = document.createElement("a");
      link.href = `/api/games/${id}/export?format=${format}`;
      link.textContent = label;
      link.target = "_blank";
      link.dataset.format = format;
      link.hidden = true;
      exports.appendChild(link);
    }
  }

  get secretForApi() {
    return this.secret || this.control;
  }

  async start() {
    $("#game").hidden = false;
    try {
      this.render(await api("GET", `/api/games/${this.id}`, { secret: this.secretForApi }));
    } catch (failure) {
      this.notice(failure.message);
      return;
    }
    this.connect();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/api/games/${this.id}/events`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ type: "hello", secret: this.secretForApi }));
      this.retry = 500;
      $("#connection").textContent = "live";
      $("#connection").className = "connection live";
      // A notice from while the server was away no longer holds.
      if (this.offline) {
        this.offline = false;
        this.notice("");
      }
    });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "state") this.render(message.state);
      else if (message.type === "error") this.notice(message.error.message);
    });
    socket.addEventListener("close", () => {
      $("#connection").textContent = "server unreachable: reconnecting…";
      $("#connection").className = "connection down";
      // Who is connected is not known until the server is back.
      for (const presence of document.querySelectorAll(".player .presence")) {
        presence.textContent = "";
        presence.className = "presence";
      }
      $("#watching").hidden = true;
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    });
  }

  notice(text) {
    $("#notice").textContent = text;
  }

  /** A notice that goes away by itself after two seconds (unless replaced). */
  briefly(text) {
    this.notice(text);
    clearTimeout(this.briefTimer);
    this.briefTimer = setTimeout(() => {
      if ($("#notice").textContent === text) this.notice("");
    }, 2000);
  }

  seatName(color, seat) {
    const who = seat.name || (seat.player === "human" ? "guest" : seat.player);
    const you = this.state && this.state.you === color ? " (you)" : "";
    const rating = seat.rating === null || seat.rating === undefined ? "" : ` (${seat.rating}${seat.provisional ? "?" : ""})`;
    const bot = seat.bot ? "BOT " : "";
    return `${NAMES[color]}: ${bot}${isolated(who)}${rating}${you}`;
  }

  render(state) {
    const previous = this.state;
    // An answer over HTTP can arrive after a newer state over the live channel.
    if (previous && state.version < previous.version) return;
    this.state = state;
    // The rematch is on: both seats go to it (the same secret opens the new seat).
    if (state.rematch && state.you !== null) {
      location.assign(`/g/${state.rematch}${location.hash}`);
      return;
    }
    const yourTurn = state.status === "playing" && state.you !== null && state.you === state.to_move;
    const wasYourTurn = previous !== null && previous.status === "playing" && previous.you === previous.to_move;
    if (yourTurn && !wasYourTurn) this.yourMove();
    this.setTitle(state);
    this.clocks.update(state);
    // Hints are for the position they were asked in.
    if (this.hintVersion !== null && this.hintVersion !== state.version) this.clearHints();
    const live = this.review === null;
    if (live) {
      const interactive = state.status === "playing" && state.you !== null && state.you === state.to_move;
      const animate = previous !== null && previous.version !== state.version;
      this.board.render({ ...state, interactive }, animate);
    }
    $("#player-B .name").textContent = this.seatName("B", state.seats.black);
    $("#player-W .name").textContent = this.seatName("W", state.seats.white);
    for (const [color, seat] of [["B", state.seats.black], ["W", state.seats.white]]) {
      const change = document.querySelector(`#player-${color} .change`);
      const moved = seat.rating_change;
      change.hidden = moved === null || moved === undefined;
      change.textContent = change.hidden ? "" : `${moved >= 0 ? "+" : "−"}${Math.abs(moved)}`;
      change.className = `change ${moved > 0 ? "up" : moved < 0 ? "down" : ""}`;
      change.setAttribute("aria-label", change.hidden ? "" : `rating ${change.textContent}`);
    }
    $("#player-B .count").textContent = state.counts.B;
    $("#player-W .count").textContent = state.counts.W;
    for (const [color, seat] of [["B", state.seats.black], ["W", state.seats.white]]) {
      const presence = document.querySelector(`#player-${color} .presence`);
      presence.textContent = seat.kind === "engine" ? "" : seat.connected ? "connected" : "away";
      presence.className = `presence ${seat.connected ? "on" : "off"}`;
      document.querySelector(`#player-${color}`).classList.toggle("to-move", state.to_move === color);
    }
    this.renderStatus(state);
    $("#game-line").textContent = describeGame(state);
    this.renderMoves(state);
    this.renderButtons(state);
    this.renderInvite(state);
    this.renderWatching(state);
    // Only the formats the server writes for this game (GGF is 8x8 FULL only, say).
    for (const link of document.querySelectorAll("#export a")) {
      link.hidden = !state.exports.includes(link.dataset.format);
    }
    // The grader's input does not say its rules: how to replay it does.
    $("#export-note").textContent = state.exports.includes("grader")
      ? `The grader .in replays with: othello${state.rules === "simple" ? " --rules simple" : ""} < othello-${state.id}-${state.rules}.in`
      : "";
    // Over: the whole game on the analysis board.
    $("#analyse-game").hidden = state.status !== "over";
    $("#analyse-link").href = `/analysis?game=${state.id}`;
    $("#evaluation").hidden = !state.help.evaluation;
    if (!state.help.evaluation) {
      this.graphVersion = state.version;
    } else if (state.version !== this.graphVersion) {
      this.graphVersion = state.version;
      clearTimeout(this.graphTimer);
      this.graphTimer = setTimeout(() => this.refreshGraph(), 300);
    }
  }

  /** The tab's title: the score, or "Your move" while this page is in the background. */
  setTitle(state) {
    const yourTurn = state.status === "playing" && state.you !== null && state.you === state.to_move;
    document.title = yourTurn && document.hidden ? "● Your move — Othello" : `Othello ${state.counts.B}–${state.counts.W}`;
  }

  /** It has just become this seat's turn: a sound, if asked for, when the page is hidden. */
  yourMove() {
    if (!document.hidden || localStorage.getItem("sound") !== "on") return;
    try {
      const audio = new AudioContext();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = 660;
      gain.gain.setValueAtTime(0.2, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.3);
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.3);
    } catch {
      // No sound here: the title says it.
    }
  }

  renderStatus(state) {
    const banner = $("#banner");
    let status;
    if (state.status === "over") {
      const { B, W } = state.counts;
      let text;
      if (state.ending === "abort") {
        text = "aborted, no result";
      } else if (state.ending === "no_first_move") {
        text = `aborted: ${NAMES[state.no_first_move]} did not make a first move in time, no result`;
      } else if (state.resigned) {
        text = `${NAMES[state.resigned]} resigned: ${NAMES[state.winner]} wins`;
      } else if (state.ending === "time") {
        text = `${NAMES[state.winner === "B" ? "W" : "B"]}'s time ran out: ${NAMES[state.winner]} wins`;
      } else if (state.ending === "abandon") {
        text = `${NAMES[state.winner === "B" ? "W" : "B"]} left the game: ${NAMES[state.winner]} wins`;
      } else if (state.winner === "none") {
        text = `Draw, ${B}–${W}`;
      } else {
        const fewer = state.win === "fewest" ? " with fewer discs" : "";
        text = `${NAMES[state.winner]} wins${fewer}, ${B}–${W}`;
      }
      banner.textContent = `Game over: ${text}`;
      banner.hidden = false;
      status = "Game over";
    } else {
      banner.hidden = true;
      const you = state.you === state.to_move ? " (you)" : "";
      status = `${NAMES[state.to_move]} to move${you}`;
      if (state.rated) status += " — rated";
      if (state.thinking) status += " — thinking…";
      if (state.paused) status += " — paused";
    }
    $("#status").textContent = status;
    if (!this.offline) {
      $("#notice").textContent = state.passed ? `${NAMES[state.passed]} has no legal move and passes.` : "";
    }
    const request = $("#undo-request");
    const mine = Boolean(state.undo_request) && state.undo_request === state.you;
    const theirs = Boolean(state.undo_request) && Boolean(state.you) && !mine;
    request.hidden = !(mine || theirs) || state.status !== "playing";
    request.querySelector(".text").textContent = mine
      ? "Waiting for the other player to accept your undo."
      : theirs ? `${NAMES[state.undo_request]} asks to take back a move.` : "";
    for (const button of request.querySelectorAll("button")) {
      button.hidden = (button.dataset.action === "cancel") !== mine;
    }
  }

  renderMoves(state) {
    const list = $("#moves");
    list.textContent = "";
    let ply = 0;
    state.moves.forEach((move, index) => {
      const item = document.createElement("li");
      const side = index % 2 === 0 ? state.first : (state.first === "B" ? "W" : "B");
      if (move === "pass") {
        item.textContent = "pass";
        item.className = "pass";
      } else {
        ply += 1;
        const button = document.createElement("button");
        const thisPly = ply;
        button.type = "button";
        const number = document.createElement("span");
        number.className = "number";
        number.textContent = `${thisPly}.`;
        button.append(number, move);
        button.title = `${NAMES[side]}: review the position after ${move}`;
        if (this.review === thisPly) button.className = "current";
        button.addEventListener("click", () => this.showReview(thisPly));
        item.appendChild(button);
      }
      item.classList.add(side === "B" ? "by-black" : "by-white");
      list.appendChild(item);
    });
    // Playing, the newest move stays in sight.
    if (this.review === null) list.scrollTop = list.scrollHeight;
  }

  renderButtons(state) {
    const seated = state.you !== null;
    const playing = state.status === "playing";
    const opponent = state.you === "B" ? state.seats.white : state.seats.black;
    // What cannot be used is hidden (issue 47): hints, undo, redo and resign once over,
    // undo before the seat's own first move, pause and step on a finished game.
    $("#hint-button").hidden = !playing || (!state.help.hints && !(state.help_on && seated));
    $("#hint-button").disabled = !state.help.hints;
    $("#hint-button").title = state.help.hints ? "" : "hints are for your own turn";
    const note = $("#help-note");
    const people = state.seats.black.kind === "human" && state.seats.white.kind === "human";
    note.hidden = !(people && playing);
    note.textContent = state.help_on
      ? "Help is on for both players: hints on your own turn and the evaluation graph."
      : "No engine help in this game while it is played.";
    const moved = state.moves.some((_, index) => (index % 2 === 0 ? state.first : OTHER[state.first]) === state.you);
    $("#undo-button").hidden = !seated || !playing || !moved || state.rated;
    $("#undo-button").disabled = Boolean(state.undo_request);
    $("#undo-button").textContent = seated && opponent.kind === "human" ? "Ask to undo" : "Undo";
    $("#redo-button").hidden = !seated || !playing || opponent.kind === "human" || !state.can_redo;
    $("#resign-button").hidden = !seated || !playing;
    // Before the second move a game can be called off, with no result.
    $("#abort-button").hidden = !seated || !state.can_abort;
    // An untimed game between people whose other player has left can be claimed.
    $("#claim-button").hidden = !seated || !playing || Boolean(state.clock) || !people || opponent.connected;
    const rematch = $("#rematch-button");
    rematch.hidden = !seated || playing;
    // After the end, the way on leads: a rematch, or a new game.
    $("#after-end").hidden = playing;
    const offeredByMe = state.rematch_offer !== null && state.rematch_offer === state.you;
    rematch.disabled = offeredByMe;
    rematch.textContent = offeredByMe ? "Rematch offered…" : state.rematch_offer ? "Accept the rematch" : "Rematch";
    const controls = $("#bot-controls");
    controls.hidden = !state.control;
    if (state.control) {
      $("#pause-button").textContent = state.paused ? "Resume" : "Pause";
      $("#pause-button").hidden = !playing;
      $("#step-button").hidden = !playing;
      $("#pace-label").hidden = !playing;
      $("#step-button").disabled = !state.paused;
      $("#speed-input").value = state.speed_ms;
      $("#speed-output").textContent = `${state.speed_ms} ms`;
    }
  }

  renderWatching(state) {
    const watching = $("#watching");
    const spectator = state.you === null && !state.control;
    // Connections without a seat count as spectators, this one too (a controller's too).
    const others = state.spectators - (state.you === null ? 1 : 0);
    const parts = [];
    if (spectator) parts.push("You are watching this game.");
    if (others > 0) parts.push(`${others} ${spectator ? "other " : ""}${others === 1 ? "person is" : "people are"} watching.`);
    watching.textContent = parts.join(" ");
    watching.hidden = parts.length === 0;
  }

  renderInvite(state) {
    const box = $("#invite");
    if (state.control) {
      // A game between engines: its spectators' link, to share.
      box.textContent = "";
      const text = document.createElement("span");
      text.textContent = "Link for spectators: ";
      const input = document.createElement("input");
      input.readOnly = true;
      input.value = `${location.origin}/g/${state.id}`;
      input.setAttribute("aria-label", "the link for spectators");
      input.addEventListener("focus", () => input.select());
      box.append(text, input);
      box.hidden = false;
      return;
    }
    const saved = localStorage.getItem(`invite:${state.id}`);
    if (!saved || state.you === null) {
      box.hidden = true;
      return;
    }
    const seats = JSON.parse(saved);
    const other = state.you === "B" ? seats.white : seats.black;
    if (!other.url) {
      box.hidden = true;
      return;
    }
    box.textContent = "";
    const text = document.createElement("span");
    text.textContent = `Send this link to ${NAMES[state.you === "B" ? "W" : "B"]}: `;
    const input = document.createElement("input");
    input.readOnly = true;
    input.value = other.url;
    input.setAttribute("aria-label", "the other player's link");
    input.addEventListener("focus", () => input.select());
    const watch = document.createElement("a");
    watch.href = `/g/${state.id}`;
    watch.textContent = "link for spectators";
    box.append(text, input, " ", watch);
    box.hidden = false;
  }

  async refreshGraph() {
    if (!this.state || !this.state.help.evaluation) return;
    try {
      const data = await api("GET", `/api/games/${this.id}/evaluations`, { secret: this.secretForApi });
      drawGraph($("#graph"), data, (ply) => this.showReview(ply), this.review);
      // A long game's graph comes in steps: ask for the rest.
      if (!data.complete) {
        clearTimeout(this.graphTimer);
        this.graphTimer = setTimeout(() => this.refreshGraph(), 200);
      }
    } catch {
      // The graph is extra: the next change tries again.
    }
  }

  async showReview(ply) {
    if (this.state && ply === this.state.ply) {
      this.leaveReview();
      return;
    }
    try {
      const state = await api("GET", `/api/games/${this.id}?ply=${ply}`);
      this.review = ply;
      this.board.render({ ...state, interactive: false }, false);
      const note = $("#review");
      note.textContent = `Reviewing the position after move ${ply}. `;
      const back = document.createElement("button");
      back.type = "button";
      back.textContent = "Back to the game";
      back.addEventListener("click", () => this.leaveReview());
      note.appendChild(back);
      note.hidden = false;
      this.renderMoves(this.state);
      this.refreshGraph();
    } catch (failure) {
      this.notice(failure.message);
    }
  }

  leaveReview() {
    this.review = null;
    $("#review").hidden = true;
    this.render(this.state);
    this.refreshGraph();
  }

  async act(method, path, body) {
    try {
      const state = await api(method, path, { body, secret: this.secretForApi });
      if (state) this.render(state);
      return true;
    } catch (failure) {
      this.offline = Boolean(failure.offline);
      if (failure.trouble) {
        this.trouble(path.endsWith("/moves") ? "your move was not played" : "nothing was changed");
      } else {
        this.notice(failure.message);
      }
      return false;
    }
  }

  /**
   * The server is in trouble (its database fails): said plainly, with what did not
   * happen, and the header shows it until the server is healthy again.
   */
  trouble(what) {
    const text = `The server is having trouble: ${what}. Try again in a moment.`;
    this.notice(text);
    $("#connection").textContent = "server in trouble";
    $("#connection").className = "connection down";
    for (const presence of document.querySelectorAll(".player .presence")) {
      presence.textContent = "";
      presence.className = "presence";
    }
    clearTimeout(this.troubleTimer);
    const check = async () => {
      const healthy = await fetch("/healthz").then((response) => response.ok, () => false);
      if (!healthy) {
        this.troubleTimer = setTimeout(check, 2000);
        return;
      }
      $("#connection").textContent = "live";
      $("#connection").className = "connection live";
      if ($("#notice").textContent === text) this.notice("");
      if (this.state) this.render(this.state);
    };
    this.troubleTimer = setTimeout(check, 2000);
  }

  play(square) {
    return this.act("POST", `/api/games/${this.id}/moves`, { square });
  }

  undo(action) {
    return this.act("POST", `/api/games/${this.id}/undo`, { action });
  }

  redo() {
    return this.act("POST", `/api/games/${this.id}/redo`, {});
  }

  resign() {
    if (confirm("Resign this game?")) this.act("POST", `/api/games/${this.id}/resign`, {});
  }

  controlGame(change) {
    return this.act("POST", `/api/games/${this.id}/control`, change);
  }

  clearHints() {
    this.hintVersion = null;
    this.board.setHints([]);
    $("#hints").textContent = "";
    $("#hints").hidden = true;
  }

  async hint() {
    const version = this.state.version;
    const list = $("#hints");
    list.hidden = false;
    list.textContent = "";
    const waiting = document.createElement("li");
    waiting.textContent = "thinking…";
    list.appendChild(waiting);
    try {
      const hint = await api("GET", `/api/games/${this.id}/hint?count=3&time_ms=1000`, { secret: this.secretForApi });
      // The position moved on while the engine thought: these hints are for another.
      if (!this.state || this.state.version !== version) {
        this.clearHints();
        return;
      }
      list.textContent = "";
      const marks = [];
      hint.moves.forEach((line, index) => {
        const sign = line.score > 0 ? "+" : "";
        const score = line.exact ? `${sign}${line.score}` : `${sign}${line.score.toFixed(1)}`;
        const item = document.createElement("li");
        item.textContent = `${line.move} ${score}${line.exact ? " exact" : ""} — ${line.pv.slice(0, 6).join(" ")}`;
        list.appendChild(item);
        if (line.move !== "pass") marks.push({ square: line.move, rank: index + 1, score });
      });
      this.hintVersion = version;
      this.board.setHints(marks);
    } catch (failure) {
      list.textContent = "";
      this.notice(failure.message);
    }
  }
}

// ---------------------------------------------------------------- start

function secretsFromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  return { secret: params.get("secret"), control: params.get("control") };
}

async function start() {
  await loadSession();
  showAccount();
  const game = location.pathname.match(/^\/g\/([0-9a-zA-Z]+)$/);
  const seek = location.pathname.match(/^\/s\/([0-9a-zA-Z]+)$/);
  const player = location.pathname.match(/^\/u\/([^/]+)$/);
  const puzzle = location.pathname.match(/^\/p\/([0-9a-f]+)$/);
  const tournament = location.pathname.match(/^\/t\/([0-9a-zA-Z]+)$/);
  if (game) {
    new GameView(game[1], secretsFromHash()).start();
  } else if (seek) {
    showSeek(seek[1]);
  } else if (player) {
    showPlayer(decodeURIComponent(player[1]));
  } else if (location.pathname === "/analysis") {
    showAnalysis();
  } else if (tournament) {
    showTournament(tournament[1]);
  } else if (puzzle || location.pathname === "/puzzles") {
    showPuzzles(puzzle ? puzzle[1] : null);
  } else {
    showLobby();
    showForm();
  }
}

start();
