/**
 * The console page's chart drawing, as the text of a browser script: inline SVG with axes, ticks,
 * axis titles with units and a legend. Calls per minute are stacked bars by outcome; latency is a
 * p50 and a p95 line with a point per minute that had completed calls. Text goes in as text only.
 */

/** The chart functions (`drawCalls`, `drawLatency`), for the page's one script. */
export const CHART_SCRIPT = `
const SVG_NS = "http://www.w3.org/2000/svg"
const COLORS = { ok: "#2e7d32", tool_error: "#ef8f00", denied: "#c62828", refused: "#7b1fa2", failed: "#37474f", withheld: "#ad1457", halted: "#6d4c41", recovered: "#00838f", cancelled: "#9e9e9e", pending: "#1565c0" }
const colorOf = (outcome) => Object.hasOwn(COLORS, outcome) ? COLORS[outcome] : "#607d8b"
const CHART = { width: 560, height: 240, left: 56, right: 12, top: 12, bottom: 70 }
const LINES = [["p50", "#1565c0"], ["p95", "#c62828"]]
function svgNode(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag)
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value))
  if (text !== undefined) node.textContent = text
  return node
}
// The tick step: the smallest 1, 2 or 5 times a power of ten that splits the largest value into at most 4 steps.
function tickStep(largest) {
  const raw = largest > 0 ? largest / 4 : 0.25
  const power = Math.pow(10, Math.floor(Math.log10(raw)))
  for (const m of [1, 2, 5]) if (m * power >= raw) return m * power
  return 10 * power
}
const tickText = (value) => String(Number(value.toPrecision(6)))
const hhmm = (ms) => { const d = new Date(ms); return String(d.getHours()).padStart(2, "0") + ":" + String(d.getMinutes()).padStart(2, "0") }
// The frame both charts share: y ticks with grid lines, time ticks, both axes and their titles.
function frame(svg, series, largest, yTitle) {
  const step = tickStep(largest), ticks = Math.max(1, Math.ceil(largest / step)), yMax = ticks * step
  const w = CHART.width - CHART.left - CHART.right, h = CHART.height - CHART.top - CHART.bottom, n = series.buckets.length
  const x = (i) => CHART.left + (i / n) * w
  const y = (v) => CHART.top + h - (v / yMax) * h
  const axes = svgNode("g", { class: "axes" })
  for (let k = 0; k <= ticks; k++) {
    const v = k * step
    axes.append(svgNode("line", { class: "grid", x1: CHART.left, x2: CHART.left + w, y1: y(v), y2: y(v) }))
    axes.append(svgNode("text", { class: "tick y-tick", x: CHART.left - 6, y: y(v) + 4, "text-anchor": "end" }, tickText(v)))
  }
  const every = Math.max(1, Math.ceil(n / 6))
  for (let i = 0; i < n; i += every) axes.append(svgNode("text", { class: "tick x-tick", x: x(i + 0.5), y: CHART.top + h + 16, "text-anchor": "middle" }, hhmm(series.buckets[i].start)))
  axes.append(svgNode("line", { class: "axis", x1: CHART.left, x2: CHART.left, y1: CHART.top, y2: CHART.top + h }))
  axes.append(svgNode("line", { class: "axis", x1: CHART.left, x2: CHART.left + w, y1: CHART.top + h, y2: CHART.top + h }))
  axes.append(svgNode("text", { class: "axis-label x-label", x: CHART.left + w / 2, y: CHART.top + h + 34, "text-anchor": "middle" }, "time (local, " + Math.round(series.bucketMs / 60000) + "-minute buckets)"))
  axes.append(svgNode("text", { class: "axis-label y-label", x: 0, y: 0, transform: "translate(14 " + (CHART.top + h / 2) + ") rotate(-90)", "text-anchor": "middle" }, yTitle))
  svg.append(axes)
  return { x, y, w, n }
}
function legend(svg, entries) {
  const g = svgNode("g", { class: "legend" })
  let at = CHART.left
  const base = CHART.height - 8
  for (const [label, color, key] of entries) {
    const entry = svgNode("g", { class: "legend-entry", "data-key": key })
    entry.append(svgNode("rect", { class: "swatch", x: at, y: base - 10, width: 10, height: 10, fill: color }), svgNode("text", { x: at + 14, y: base }, label))
    g.append(entry)
    at += 28 + label.length * 7
  }
  svg.append(g)
}
function drawCalls(svg, series) {
  svg.replaceChildren()
  const totals = series.buckets.map((b) => Object.values(b.counts).reduce((a, c) => a + c, 0))
  const f = frame(svg, series, Math.max(0, ...totals), "calls / minute")
  const bars = svgNode("g", { class: "bars" })
  series.buckets.forEach((b, i) => {
    let below = 0
    for (const outcome of series.outcomes) {
      const v = Object.hasOwn(b.counts, outcome) ? b.counts[outcome] : 0
      if (v === 0) continue
      const bar = svgNode("rect", { class: "bar", "data-outcome": outcome, "data-start": b.start, "data-value": v, x: f.x(i) + 1, y: f.y(below + v), width: Math.max(1, f.w / f.n - 2), height: f.y(below) - f.y(below + v), fill: colorOf(outcome) })
      bar.append(svgNode("title", {}, hhmm(b.start) + " " + outcome + ": " + v + " calls"))
      bars.append(bar)
      below += v
    }
  })
  svg.append(bars)
  legend(svg, series.outcomes.map((outcome) => [outcome, colorOf(outcome), outcome]))
}
function drawLatency(svg, series) {
  svg.replaceChildren()
  const values = series.buckets.flatMap((b) => [b.p50, b.p95]).filter((v) => v !== null)
  const f = frame(svg, series, Math.max(0, ...values), "latency (ms)")
  for (const [key, color] of LINES) {
    const g = svgNode("g", { class: "line", "data-series": key })
    const points = []
    series.buckets.forEach((b, i) => {
      if (b[key] === null) return
      const cx = f.x(i + 0.5), cy = f.y(b[key])
      points.push(cx + "," + cy)
      const point = svgNode("circle", { class: "point", "data-series": key, "data-value": b[key], cx, cy, r: 3, fill: color })
      point.append(svgNode("title", {}, hhmm(b.start) + " " + key + ": " + b[key].toFixed(1) + " ms"))
      g.append(point)
    })
    if (points.length > 1) g.prepend(svgNode("polyline", { points: points.join(" "), fill: "none", stroke: color, "stroke-width": 2 }))
    svg.append(g)
  }
  legend(svg, LINES.map(([key, color]) => [key + " (ms)", color, key]))
}
`
