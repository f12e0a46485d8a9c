/**
 * The web console page: a live table of recent calls (verdicts and receipts), pending approvals
 * with approve and deny buttons (for approvers, never on their own calls), and a per-tool chart of
 * calls and denials per minute. One static page; it polls `/api/state` every second, shows who is
 * signed in and who approved each call, and never shows arguments (but redacted ones) or results.
 */

/** The console's HTML (self-contained: inline style and script, no external requests). */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Interlock console</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 1.5rem; color: #1d2330; }
  h1 { font-size: 1.3rem; } h2 { font-size: 1.05rem; margin-top: 1.6rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e3e6ee; vertical-align: top; }
  .ok { color: #17733a; } .denied, .failed, .withheld { color: #b3261e; } .tool_error { color: #a55b00; }
  .hooks { color: #59607a; font-size: 12px; }
  button { margin-right: .4rem; } .empty { color: #8a90a5; }
  .chart { display: inline-block; margin: 0 1rem 1rem 0; } .chart svg { border: 1px solid #e3e6ee; }
  #status { color: #8a90a5; font-size: 12px; }
</style>
</head>
<body>
<h1>Interlock console <span id="status">connecting…</span></h1>
<p id="viewer"></p>
<h2>Pending approvals</h2>
<table id="approvals"><thead><tr><th>Time</th><th>Principal</th><th>Tool</th><th>Reason</th><th>Arguments (redacted)</th><th></th></tr></thead><tbody></tbody></table>
<h2>Calls and denials per tool (last 30 minutes)</h2>
<div id="charts"></div>
<h2>Recent calls</h2>
<table id="calls"><thead><tr><th>#</th><th>Time</th><th>Principal</th><th>Tool</th><th>Policy</th><th>Approval</th><th>Approved by</th><th>Outcome</th><th>ms</th><th>Hooks (receipt)</th></tr></thead><tbody></tbody></table>
<script>
const $ = (sel) => document.querySelector(sel)
const cell = (text, cls) => { const td = document.createElement("td"); td.textContent = text == null ? "" : String(text); if (cls) td.className = cls; return td }
const time = (ms) => new Date(ms).toLocaleTimeString()
async function answer(id, digest, decision) {
  await fetch("/api/approvals/" + id, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ decision, digest }) })
  refresh()
}
function renderApprovals(list, viewer) {
  const body = $("#approvals tbody"); body.replaceChildren()
  if (list.length === 0) { const tr = document.createElement("tr"); tr.append(cell("No pending approvals", "empty")); body.append(tr); return }
  for (const a of list) {
    const tr = document.createElement("tr"); tr.dataset.id = a.id
    tr.append(cell(time(a.time)), cell(a.principal || "-"), cell(a.server + "/" + a.tool), cell(a.reason), cell(JSON.stringify(a.args)))
    const td = document.createElement("td")
    const own = a.principal === viewer.id
    const choices = viewer.role !== "approver" ? [] : own ? [["Deny", "deny"]] : [["Approve", "allow"], ["Deny", "deny"]]
    if (viewer.role === "approver" && own) td.append("your own call: another approver decides ")
    for (const [label, decision] of choices) {
      const b = document.createElement("button"); b.textContent = label; b.dataset.decision = decision
      b.onclick = () => answer(a.id, a.digest, decision); td.append(b)
    }
    tr.append(td); body.append(tr)
  }
}
function renderCalls(calls) {
  const body = $("#calls tbody"); body.replaceChildren()
  for (const c of calls) {
    const tr = document.createElement("tr"); tr.dataset.outcome = c.outcome
    const policy = c.decision ? c.decision + (c.rule ? " (" + c.rule + ")" : "") : "-"
    const hooks = c.hooks.map((h) => h.id + ":" + h.status).join(", ")
    tr.append(cell(c.id), cell(time(c.time)), cell(c.principal || "-"), cell(c.server + "/" + c.tool), cell(policy), cell(c.approval || "-"), cell(c.approvedBy || "-", "approved-by"), cell(c.outcome === "pending" ? "sent, outcome unknown" : c.outcome, c.outcome), cell(c.durationMs.toFixed(1)), cell(hooks, "hooks"))
    body.append(tr)
  }
}
function renderCharts(buckets, now) {
  const byTool = new Map()
  for (const b of buckets) { const k = b.server + "/" + b.tool; if (!byTool.has(k)) byTool.set(k, []); byTool.get(k).push(b) }
  const root = $("#charts"); root.replaceChildren()
  if (byTool.size === 0) { const p = document.createElement("p"); p.className = "empty"; p.textContent = "No calls yet"; root.append(p); return }
  const start = Math.floor(now / 60000) * 60000 - 29 * 60000
  for (const [tool, list] of byTool) {
    const max = Math.max(1, ...list.map((b) => b.calls))
    const div = document.createElement("div"); div.className = "chart"; div.dataset.tool = tool
    const title = document.createElement("div"); title.textContent = tool; div.append(title)
    const ns = "http://www.w3.org/2000/svg"; const svg = document.createElementNS(ns, "svg")
    svg.setAttribute("width", "240"); svg.setAttribute("height", "60")
    for (const b of list) {
      const x = ((b.start - start) / 60000) * 8; if (x < 0) continue
      for (const [value, color, kind] of [[b.calls, "#8aa4d6", "calls"], [b.denied, "#d0453d", "denied"]]) {
        if (value === 0) continue
        const h = (value / max) * 56; const r = document.createElementNS(ns, "rect")
        r.setAttribute("x", String(x)); r.setAttribute("y", String(58 - h)); r.setAttribute("width", "7"); r.setAttribute("height", String(h))
        r.setAttribute("fill", color); r.dataset.kind = kind; r.dataset.value = String(value); svg.append(r)
      }
    }
    div.append(svg); root.append(div)
  }
}
async function refresh() {
  try {
    const res = await fetch("/api/state?minutes=30", { cache: "no-store" })
    if (!res.ok) { $("#status").textContent = "error " + res.status; return }
    const state = await res.json()
    $("#viewer").textContent = "Signed in as " + state.viewer.id + (state.viewer.role === "approver" ? " (approver: sees every call)" : " (caller: sees only its own calls)")
    renderApprovals(state.approvals, state.viewer); renderCalls(state.calls); renderCharts(state.buckets, state.now)
    $("#status").textContent = "live · " + new Date(state.now).toLocaleTimeString()
  } catch { $("#status").textContent = "disconnected" }
}
refresh(); setInterval(refresh, 1000)
</script>
</body>
</html>
`
