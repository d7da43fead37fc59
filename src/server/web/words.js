// A game described in one line, the same words in the lobby and at the table.

import { controlText } from "./clock.js";

/**
 * "SIMPLE · fewest discs wins · 10×6 · 1+0 rated": rules, win rule, board, time control,
 * rated or casual. `item` has `rules`, `win`, `rows`, `columns`, `clock` and `rated`.
 */
export function describeGame(item) {
  const rules = item.rules === "simple" ? "SIMPLE" : "Othello";
  const win = item.win === "fewest" ? "fewest discs wins" : "most discs wins";
  const clock = item.clock ? controlText(item.clock) : "untimed";
  return `${rules} · ${win} · ${item.rows}×${item.columns} · ${clock} ${item.rated ? "rated" : "casual"}`;
}
