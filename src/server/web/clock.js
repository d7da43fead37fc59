// The clocks of a timed game. The server keeps them and sends each side's time left with
// every state; this only counts the running side down between states, so what it shows is
// never more than a state old, whatever the browser's own clock says. Before a side's
// first move its clock stands, and a line counts down the time left to make that move.

/** A time on a clock: 4:59, 1:02:03, 0:07.3 under ten seconds, 2d 23h from a day. */
export function clockText(ms) {
  const tenths = Math.floor(Math.max(0, ms) / 100);
  const seconds = Math.floor(tenths / 10);
  const hours = Math.floor(seconds / 3600);
  if (hours >= 24) return `${Math.floor(hours / 24)}d ${hours % 24}h`;
  const minutes = Math.floor(seconds / 60) % 60;
  const rest = seconds % 60;
  if (hours > 0) return `${hours}:${String(minutes).padStart(2, "0")}:${String(rest).padStart(2, "0")}`;
  if (minutes === 0 && rest < 10) return `0:0${rest}.${tenths % 10}`;
  return `${minutes}:${String(rest).padStart(2, "0")}`;
}

/** "5+3": minutes and seconds of increment; "3 days a move" for correspondence. */
export function controlText(clock) {
  if (clock.days) return `${clock.days} ${clock.days === 1 ? "day" : "days"} a move`;
  const minutes = clock.base_ms / 60000;
  const base = Number.isInteger(minutes) ? minutes : minutes.toFixed(1);
  return `${base}+${Math.round(clock.increment_ms / 1000)}`;
}

/** Time left below which a clock shows as low. */
const LOW_MS = 10000;

const NAMES = { B: "Black", W: "White" };

export class Clocks {
  /**
   * @param {{B: HTMLElement, W: HTMLElement}} elements
   * @param {HTMLElement} first the line for the time left to make a first move
   */
  constructor(elements, first) {
    this.elements = elements;
    this.first = first;
    this.clock = null;
    this.toMove = null;
    this.received = 0;
    this.timer = null;
  }

  /** Shows the clocks of `state` (hidden for an untimed game). */
  update(state) {
    this.clock = state.clock;
    this.toMove = state.to_move;
    this.received = performance.now();
    for (const element of Object.values(this.elements)) element.hidden = !this.clock;
    this.first.hidden = !this.clock || this.clock.first_move_ms == null;
    clearInterval(this.timer);
    this.timer = null;
    if (!this.clock) return;
    this.draw();
    if (this.clock.running || this.clock.first_move_ms != null) this.timer = setInterval(() => this.draw(), 100);
  }

  /** Time left to make the first move now, before it is made. */
  firstLeft() {
    return Math.max(0, this.clock.first_move_ms - (performance.now() - this.received));
  }

  /** Time left for `side` now. */
  left(side) {
    if (!this.clock) return null;
    const base = this.clock[side];
    return this.clock.running === side ? Math.max(0, base - (performance.now() - this.received)) : base;
  }

  draw() {
    for (const side of ["B", "W"]) {
      const element = this.elements[side];
      const left = this.left(side);
      element.textContent = clockText(left);
      element.classList.toggle("running", this.clock.running === side);
      element.classList.toggle("low", left < LOW_MS);
      element.setAttribute("aria-label", `${side === "B" ? "Black" : "White"}'s clock: ${clockText(left)}`);
    }
    if (this.clock.first_move_ms != null) {
      const left = this.firstLeft();
      const shown = left >= 60000 ? clockText(left) : `${Math.ceil(left / 1000)} s`;
      this.first.textContent = `${NAMES[this.toMove]}'s first move: ${shown} left, or the game is aborted`;
      this.first.classList.toggle("low", left < LOW_MS);
    }
  }
}
