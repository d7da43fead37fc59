// The board: an SVG of any size from 4x4 to 16x16, with a1..p16 coordinates, discs that
// flip with a short animation, legal moves, the last move, hints, and a keyboard cursor. It
// only draws what the server's state says; it decides nothing about the rules. It fits the
// window whatever its shape: as wide as its column allows, no taller than the window.

const SVG = "http://www.w3.org/2000/svg";
const CELL = 40;
const MARGIN = 22;

function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

/** Standard notation: column letter a.. then row number 1.. (a1 is the top-left). */
export function squareName(row, column) {
  return String.fromCharCode(97 + column) + (row + 1);
}

export function parseSquare(name) {
  const column = name.charCodeAt(0) - 97;
  const row = parseInt(name.slice(1), 10) - 1;
  return { row, column };
}

export class Board {
  /**
   * @param {HTMLElement} container
   * @param {(square: string) => void} onPlay called when a square is chosen
   */
  constructor(container, onPlay, onIllegal = () => {}) {
    this.container = container;
    this.onPlay = onPlay;
    this.onIllegal = onIllegal;
    this.rows = 0;
    this.columns = 0;
    this.cells = [];
    this.cursor = { row: 0, column: 0 };
    this.showLegal = true;
    this.state = null;
    this.hints = [];
  }

  /** Builds the grid for a size (only when the size changes). */
  build(rows, columns) {
    this.rows = rows;
    this.columns = columns;
    this.container.textContent = "";
    const width = MARGIN * 2 + columns * CELL;
    const height = MARGIN * 2 + rows * CELL;
    const svg = el("svg", {
      viewBox: `0 0 ${width} ${height}`,
      role: "grid",
      tabindex: "0",
      "aria-label": `${rows} by ${columns} board; arrow keys move, Enter plays`,
    });
    this.svg = svg;
    // Width over height: the page's style sizes the board to fit both ways by it.
    this.container.style.setProperty("--aspect", String(width / height));
    el("rect", { x: MARGIN, y: MARGIN, width: columns * CELL, height: rows * CELL, class: "felt" }, svg);
    for (let column = 0; column < columns; column++) {
      const x = MARGIN + column * CELL + CELL / 2;
      for (const y of [MARGIN / 2 + 2, height - MARGIN / 2 + 2]) {
        const label = el("text", { x, y, class: "coordinate" }, svg);
        label.textContent = String.fromCharCode(97 + column);
      }
    }
    for (let row = 0; row < rows; row++) {
      const y = MARGIN + row * CELL + CELL / 2 + 4;
      for (const x of [MARGIN / 2, width - MARGIN / 2]) {
        const label = el("text", { x, y, class: "coordinate" }, svg);
        label.textContent = String(row + 1);
      }
    }
    this.cells = [];
    for (let row = 0; row < rows; row++) {
      const line = [];
      for (let column = 0; column < columns; column++) {
        const name = squareName(row, column);
        const g = el("g", {
          class: "cell",
          "data-square": name,
          role: "gridcell",
          "aria-label": name,
        }, svg);
        const x = MARGIN + column * CELL;
        const y = MARGIN + row * CELL;
        el("rect", { x, y, width: CELL, height: CELL, class: "square" }, g);
        const disc = el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.4, class: "disc-shape" }, g);
        const dot = el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.12, class: "legal-dot" }, g);
        const mark = el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.08, class: "last-mark" }, g);
        const ring = el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.38, class: "hint-ring" }, g);
        const hint = el("text", { x: x + CELL / 2, y: y + CELL / 2 + 4, class: "hint-text" }, g);
        g.addEventListener("click", () => {
          this.moveCursor(row, column);
          this.choose(name);
        });
        line.push({ g, disc, dot, mark, ring, hint, name, value: "." });
      }
      this.cells.push(line);
    }
    this.cursorRect = el("rect", { width: CELL, height: CELL, class: "cursor" }, svg);
    svg.addEventListener("keydown", (event) => this.key(event));
    // The cursor shows for the keyboard only: not after a click, until a key is used.
    svg.addEventListener("focus", () => svg.classList.toggle("focused", svg.matches(":focus-visible")));
    svg.addEventListener("blur", () => svg.classList.remove("focused"));
    this.container.appendChild(svg);
    this.moveCursor(0, 0);
  }

  choose(name) {
    if (!this.state || !this.state.interactive) return;
    if (this.state.legal.includes(name)) {
      this.onPlay(name);
    } else {
      this.onIllegal(name);
    }
  }

  key(event) {
    this.svg.classList.add("focused");
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (event.key in moves) {
      const [dr, dc] = moves[event.key];
      this.moveCursor(this.cursor.row + dr, this.cursor.column + dc);
      event.preventDefault();
    } else if (event.key === "Enter" || event.key === " ") {
      this.choose(squareName(this.cursor.row, this.cursor.column));
      event.preventDefault();
    }
  }

  moveCursor(row, column) {
    this.cursor.row = Math.max(0, Math.min(this.rows - 1, row));
    this.cursor.column = Math.max(0, Math.min(this.columns - 1, column));
    this.cursorRect.setAttribute("x", MARGIN + this.cursor.column * CELL);
    this.cursorRect.setAttribute("y", MARGIN + this.cursor.row * CELL);
    const name = squareName(this.cursor.row, this.cursor.column);
    this.svg.setAttribute("aria-activedescendant", name);
    this.svg.setAttribute("aria-label", `cursor on ${name}; arrow keys move, Enter plays`);
  }

  /**
   * Draws a state: {rows, columns, board, legal, last_move, flipped, interactive}.
   * Discs that changed colour flip; new ones appear.
   */
  render(state, animate = true) {
    if (state.rows !== this.rows || state.columns !== this.columns) {
      this.build(state.rows, state.columns);
      animate = false;
    }
    this.state = state;
    const legal = new Set(state.interactive && this.showLegal ? state.legal : []);
    const flipped = new Set(state.flipped || []);
    for (let row = 0; row < this.rows; row++) {
      for (let column = 0; column < this.columns; column++) {
        const cell = this.cells[row][column];
        const value = state.board[row][column];
        const was = cell.value;
        cell.value = value;
        cell.g.classList.toggle("black", value === "B");
        cell.g.classList.toggle("white", value === "W");
        cell.g.classList.toggle("empty", value === ".");
        cell.g.classList.toggle("legal", legal.has(cell.name));
        cell.g.classList.toggle("last", state.last_move === cell.name);
        const label = value === "B" ? "black" : value === "W" ? "white" : (legal.has(cell.name) ? "legal move" : "empty");
        cell.g.setAttribute("aria-label", `${cell.name} ${label}`);
        if (animate && was !== value && was !== "." && value !== "." && flipped.has(cell.name)) {
          cell.disc.classList.remove("flip");
          void cell.disc.getBoundingClientRect();
          cell.disc.classList.add("flip");
        } else if (animate && was === "." && value !== ".") {
          cell.disc.classList.remove("appear");
          void cell.disc.getBoundingClientRect();
          cell.disc.classList.add("appear");
        }
      }
    }
    this.svg.classList.toggle("interactive", Boolean(state.interactive));
    if (this.hints.length > 0) this.setHints(this.hints);
  }

  /**
   * Marks the engine's best moves on their squares: [{square, rank, score}], best first
   * (an empty list clears them).
   */
  setHints(hints) {
    this.hints = hints;
    const byName = new Map(hints.map((hint) => [hint.square, hint]));
    for (const line of this.cells) {
      for (const cell of line) {
        const hint = byName.get(cell.name);
        cell.g.classList.toggle("hint", Boolean(hint));
        cell.g.classList.toggle("best", Boolean(hint) && hint.rank === 1);
        cell.hint.textContent = hint ? hint.score : "";
        if (hint) cell.g.setAttribute("aria-label", `${cell.name} hint ${hint.rank}: ${hint.score}`);
      }
    }
  }

  setShowLegal(show) {
    this.showLegal = show;
    if (this.state) this.render(this.state, false);
  }
}
