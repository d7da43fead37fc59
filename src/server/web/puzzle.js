// The puzzle page (/puzzles, or /p/ID for one puzzle): a position near the end where one
// move alone keeps the result. Click it; the answer comes back with every move's exact
// score on the board and, for an account's first answer, the rating's change.

import { api, session } from "./api.js";
import { Board } from "./board.js";

const $ = (selector) => document.querySelector(selector);

/** A final disc difference for the side to move, in words. */
export function scoreWords(score) {
  if (score > 0) return `wins by ${score}`;
  if (score < 0) return `loses by ${-score}`;
  return "draws";
}

function side(letter) {
  return letter === "B" ? "Black" : "White";
}

function signed(number) {
  return number > 0 ? `+${number}` : number < 0 ? `\u2212${-number}` : "\u00b10";
}

class PuzzlePage {
  constructor() {
    this.board = new Board($("#puzzle-board"), (square) => this.answer(square), (square) => {
      $("#puzzle-notice").textContent = `${square} is not a legal move here.`;
    });
    this.puzzle = null;
    $("#puzzle-next").addEventListener("click", () => this.load(null));
  }

  async load(id) {
    $("#puzzle-notice").textContent = "";
    try {
      const after = this.puzzle ? `?after=${encodeURIComponent(this.puzzle.id)}` : "";
      const puzzle = id ? await api("GET", `/api/puzzles/${encodeURIComponent(id)}`) : await api("GET", `/api/puzzles/next${after}`);
      this.show(puzzle);
    } catch (failure) {
      $("#puzzle-task").textContent = failure.message;
      // No puzzle to answer: the board shown is no longer one.
      if (this.board.state) this.board.render({ ...this.board.state, interactive: false }, false);
    }
  }

  show(puzzle) {
    this.puzzle = puzzle;
    history.replaceState(null, "", `/p/${puzzle.id}`);
    document.title = `Puzzle ${puzzle.id} · Othello`;
    const goal = puzzle.goal === "win" ? "find the only winning move" : "find the only move that does not lose";
    $("#puzzle-task").textContent = `${side(puzzle.to_move)} to move: ${goal}.`;
    this.showInfo(puzzle);
    this.showYou(puzzle.you);
    $("#puzzle-result").hidden = true;
    $("#puzzle-moves").hidden = true;
    $("#puzzle-link").href = puzzle.url;
    this.board.setHints([]);
    this.board.render({ rows: 8, columns: 8, board: puzzle.board, legal: puzzle.legal, interactive: true, last_move: null, flipped: [] }, false);
  }

  showInfo(puzzle) {
    const tried = puzzle.attempts === 0 ? "not answered yet" : `answered ${puzzle.attempts} time${puzzle.attempts === 1 ? "" : "s"}, ${Math.round((100 * puzzle.solved) / puzzle.attempts)} % right`;
    $("#puzzle-info").textContent = `Puzzle ${puzzle.id} · rated ${puzzle.rating} · ${puzzle.empties} empty squares · ${tried}`;
  }

  showYou(you) {
    const line = $("#puzzle-you");
    if (!you) {
      line.textContent = session.user ? "" : "Log in to have your answers rated.";
      return;
    }
    const mark = you.provisional ? "?" : "";
    let text = `Your puzzle rating: ${you.rating}${mark} (${you.attempts} answered, ${you.solved} right).`;
    if (you.answered !== null) text += " You answered this one before: a new answer is not rated.";
    line.textContent = text;
  }

  async answer(square) {
    const puzzle = this.puzzle;
    this.board.render({ ...this.board.state, interactive: false }, false);
    try {
      const judged = await api("POST", `/api/puzzles/${encodeURIComponent(puzzle.id)}/answer`, { body: { square } });
      const best = judged.moves[0];
      const chosen = judged.moves.find((move) => move.square === square);
      const result = $("#puzzle-result");
      result.className = judged.correct ? "puzzle-result right" : "puzzle-result wrong";
      result.textContent = judged.correct
        ? `Right: ${square} ${scoreWords(best.score)}.`
        : `Not this one: ${square} ${scoreWords(chosen.score)}; ${best.square} ${scoreWords(best.score)}.`;
      if (judged.rated) {
        result.textContent += ` Your rating: ${judged.before} \u2192 ${judged.after} (${signed(judged.after - judged.before)}).`;
      }
      result.hidden = false;
      const list = $("#puzzle-moves");
      list.textContent = "";
      for (const move of judged.moves) {
        const item = document.createElement("li");
        item.textContent = `${move.square}: ${scoreWords(move.score)}${move.square === judged.answer ? " (the answer)" : ""}${move.square === square ? " \u2190 yours" : ""}`;
        list.appendChild(item);
      }
      list.hidden = false;
      this.board.setHints(judged.moves.map((move, index) => ({ square: move.square, rank: index + 1, score: signed(move.score) })));
      // The puzzle's rating and the reader's, as they are now.
      const now = await api("GET", `/api/puzzles/${encodeURIComponent(puzzle.id)}`);
      if (this.puzzle === puzzle) {
        this.showInfo(now);
        this.showYou(now.you && { ...now.you, answered: null });
      }
    } catch (failure) {
      $("#puzzle-notice").textContent = failure.message;
      this.board.render({ ...this.board.state, interactive: true }, false);
    }
  }
}

/** Shows the puzzle page: puzzle `id`, or the next one for the reader. */
export function showPuzzles(id) {
  $("#puzzle-page").hidden = false;
  new PuzzlePage().load(id);
}
