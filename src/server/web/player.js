// A player's page (/u/NAME): ratings per category, a graph of the rating over their rated
// games, and their games with results, each a link to review it.

import { api, session } from "./api.js";
import { renderTurn } from "./lobby.js";

const $ = (selector) => document.querySelector(selector);
const SVG = "http://www.w3.org/2000/svg";

/** A date as ISO writes it (2026-11-27), in the reader's time zone: never ambiguous. */
export function isoDate(ms) {
  const date = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
}

/** A game's result for the player, in words: "loss, on time", "win, resigned", "aborted". */
export function resultText(game) {
  if (game.result === null || game.result === undefined) return "playing";
  const how = {
    time: { win: "won on time", loss: "lost on time" },
    resign: { win: "won, opponent resigned", loss: "lost, resigned" },
    abandon: { win: "won, opponent left", loss: "lost, left the game" },
    no_first_move: { aborted: "aborted, no first move" },
  }[game.ending]?.[game.result];
  return how ?? { win: "won", loss: "lost", draw: "draw", aborted: "aborted" }[game.result] ?? game.result;
}

function svg(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  parent.appendChild(node);
  return node;
}

/** The rating after each rated game of `category`, as a line. */
function drawHistory(container, history, category) {
  container.textContent = "";
  const points = history.filter((entry) => entry.category === category);
  if (points.length === 0) return;
  const width = 600;
  const height = 220;
  const pad = 48;
  const ratings = [1500, ...points.map((point) => point.rating)];
  const low = Math.min(...ratings) - 20;
  const high = Math.max(...ratings) + 20;
  const x = (index) => pad + (index * (width - 2 * pad)) / Math.max(1, ratings.length - 1);
  const y = (rating) => height - pad - ((rating - low) * (height - 2 * pad)) / (high - low);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `rating history, ${category}` }, container);
  svg("line", { x1: pad, x2: width - pad, y1: y(1500), y2: y(1500), class: "axis" }, chart);
  // The highest, the lowest and the start, each once (labels never overlap).
  const marks = [...new Set([Math.round(high - 20), Math.round(low + 20), 1500])];
  for (const rating of marks) {
    if (rating !== 1500 && Math.abs(y(rating) - y(1500)) < 16) continue;
    const label = svg("text", { x: pad - 6, y: y(rating) + 5, class: "scale" }, chart);
    label.textContent = rating;
  }
  const caption = svg("text", { x: width / 2, y: height - 6, class: "caption" }, chart);
  caption.textContent = `${category}: rating over ${points.length} rated game${points.length === 1 ? "" : "s"}`;
  svg("polyline", { points: ratings.map((rating, index) => `${x(index)},${y(rating)}`).join(" "), class: "curve" }, chart);
  ratings.forEach((rating, index) => {
    const dot = svg("circle", { cx: x(index), cy: y(rating), r: 3, class: "point" }, chart);
    const title = svg("title", {}, dot);
    title.textContent = index === 0 ? "start: 1500" : `after game ${index}: ${rating}`;
  });
}

export async function showPlayer(name) {
  $("#player-page").hidden = false;
  document.title = `${name} — Othello`;
  let player;
  try {
    player = await api("GET", `/api/users/${encodeURIComponent(name)}`);
  } catch (failure) {
    $("#player-name").textContent = failure.message;
    // Nobody's page: no empty sections under the message.
    for (const part of $("#player-page").querySelectorAll("h2, p, table, .graph")) part.hidden = true;
    return;
  }
  $("#player-name").textContent = player.bot ? `BOT ${player.name}` : player.name;
  $("#player-since").textContent = player.computer
    ? "A computer player: anyone may play it; its rating counts its rated games."
    : player.bot
      ? `A bot: a program playing through the bot API, since ${isoDate(player.member_since)}.`
      : `Member since ${isoDate(player.member_since)}.`;
  const ratings = $("#player-ratings tbody");
  for (const rating of player.ratings) {
    const row = ratings.insertRow();
    row.insertCell().textContent = rating.category;
    row.insertCell().textContent = `${rating.rating}${rating.provisional ? "?" : ""}`;
    row.insertCell().textContent = `±${2 * rating.deviation}`;
    row.insertCell().textContent = rating.games;
  }
  if (player.puzzles) {
    const row = ratings.insertRow();
    const puzzles = player.puzzles;
    const link = document.createElement("a");
    link.href = "/puzzles";
    link.textContent = "puzzles";
    row.insertCell().append(link);
    row.insertCell().textContent = `${puzzles.rating}${puzzles.provisional ? "?" : ""}`;
    row.insertCell().textContent = `±${2 * puzzles.deviation}`;
    row.insertCell().textContent = `${puzzles.attempts} (${puzzles.solved} right)`;
  }
  const rated = player.ratings.length > 0 || Boolean(player.puzzles);
  $("#player-ratings").hidden = !rated;
  $("#player-unrated").hidden = rated;
  if (player.ratings.length > 0) drawHistory($("#player-graph"), player.history, player.ratings[0].category);
  const own = session.user && session.user.name.toLowerCase() === player.name.toLowerCase();
  $("#player-turn-title").textContent = own ? "Your turn" : `Waiting for ${player.name}'s move`;
  renderTurn($("#player-turn-list"), player.turn);
  const games = $("#player-games tbody");
  for (const game of player.games) {
    const row = games.insertRow();
    row.insertCell().textContent = isoDate(game.at);
    const link = document.createElement("a");
    link.href = `/g/${game.id}`;
    link.textContent = resultText(game);
    row.insertCell().append(link);
    row.insertCell().textContent = game.color === "B" ? "Black" : "White";
    const opponent = row.insertCell();
    if (game.opponent_member) {
      const page = document.createElement("a");
      page.href = `/u/${encodeURIComponent(game.opponent)}`;
      page.textContent = game.opponent;
      opponent.append(page);
    } else {
      opponent.textContent = game.opponent;
    }
    row.insertCell().textContent = [game.category ?? "untimed", game.rated ? "rated" : "casual"].join(", ");
    row.insertCell().textContent = game.moves;
  }
  $("#player-games").hidden = player.games.length === 0;
}
