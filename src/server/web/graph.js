// The evaluation graph: the engine's score after each move, for Black (up) against White
// (down), as the best Othello programs draw it. Points are the server's numbers.

const SVG = "http://www.w3.org/2000/svg";

function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

/**
 * Draws the server's `{moves, scores: [{ply, move, score, exact}]}` into `container` (the
 * scores known so far: a long game's come in steps); `onPick(ply)` when a point is chosen;
 * `current` marks the ply reviewed.
 */
export function drawGraph(container, { moves, scores }, onPick, current = null) {
  container.textContent = "";
  const width = 320;
  const height = 120;
  const pad = 6;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img" });
  // A symmetric scale in steps of 8 discs, so that the same height means the same score
  // from one move to the next and the axis is always in the middle.
  const largest = Math.max(0, ...scores.map((point) => Math.abs(point.score)));
  const limit = Math.max(8, Math.ceil(largest / 8) * 8);
  const left = 26;
  const x = (ply) => left + ((width - left - pad) * ply) / Math.max(1, moves);
  const y = (score) => height / 2 - ((height / 2 - pad) * score) / limit;
  el("line", { x1: left, x2: width - pad, y1: height / 2, y2: height / 2, class: "axis" }, svg);
  for (const [score, text] of [[limit, `+${limit}`], [0, "0"], [-limit, `−${limit}`]]) {
    const label = el("text", { x: left - 4, y: y(score) + 4, class: "scale" }, svg);
    label.textContent = text;
  }
  for (const [score, text] of [[limit, "Black"], [-limit, "White"]]) {
    // At the left, where the curve is still near 0.
    const label = el("text", { x: left + 4, y: y(score) + (score > 0 ? 8 : -2), class: "side" }, svg);
    label.textContent = text;
  }
  if (scores.length === 0) {
    const text = el("text", { x: width / 2, y: height / 2 - 8, class: "graph-empty" }, svg);
    text.textContent = moves === 0 ? "no moves yet" : "computing…";
    container.appendChild(svg);
    svg.setAttribute("aria-label", text.textContent);
    return;
  }
  const points = [[x(0), y(0)], ...scores.map((point) => [x(point.ply), y(point.score)])];
  const area = `M ${points.map(([a, b]) => `${a},${b}`).join(" L ")} L ${x(scores[scores.length - 1].ply)},${height / 2} L ${x(0)},${height / 2} Z`;
  el("path", { d: area, class: "area" }, svg);
  el("polyline", { points: points.map(([a, b]) => `${a},${b}`).join(" "), class: "curve" }, svg);
  for (const point of scores) {
    const dot = el("circle", {
      cx: x(point.ply),
      cy: y(point.score),
      r: point.ply === current ? 4 : 2.5,
      class: `point${point.exact ? " exact" : ""}${point.ply === current ? " current" : ""}`,
      tabindex: "0",
      role: "button",
      "aria-label": `after move ${point.ply} (${point.move}): ${point.score > 0 ? "+" : ""}${point.score}${point.exact ? " exact" : ""}`,
    }, svg);
    const title = el("title", {}, dot);
    title.textContent = dot.getAttribute("aria-label");
    dot.addEventListener("click", () => onPick(point.ply));
    dot.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        onPick(point.ply);
        event.preventDefault();
      }
    });
  }
  const last = scores[scores.length - 1];
  svg.setAttribute("aria-label", `evaluation after move ${last.ply} of ${moves}: ${last.score > 0 ? "+" : ""}${last.score} for Black`);
  container.appendChild(svg);
}
