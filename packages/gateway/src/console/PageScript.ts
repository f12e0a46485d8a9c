/**
 * The console page's behaviour, as a browser script: it polls `/api/state` with the chosen filters every second,
 * renders pending approvals (a countdown to each deadline, approve and deny for approvers), the viewer's connections
 * (revoke), the calls table and the charts, and a call's whole receipt when it is picked. Everything is rendered
 * with textContent: no markup from data.
 */

/** The page's behaviour (uses `drawCalls` and `drawLatency` from the chart script). */
export const PAGE_SCRIPT = `
const $ = (sel) => document.querySelector(sel)
const FILTERS = ["principal", "server", "tool", "outcome"]
const filters = { principal: "", server: "", tool: "", outcome: "" }
let clock = { server: Date.now(), local: Date.now() }
let shownOptions = ""
let selected = null
let requested = 0
let rendered = 0
const cell = (text, cls) => { const td = document.createElement("td"); td.textContent = text == null ? "" : String(text); if (cls) td.className = cls; return td }
const node = (tag, text, cls) => { const n = document.createElement(tag); if (text != null) n.textContent = String(text); if (cls) n.className = cls; return n }
const time = (ms) => new Date(ms).toLocaleTimeString()
const outcomeText = (outcome) => outcome === "pending" ? "sent, outcome unknown" : outcome
// The server's clock now: its time at the last answer plus the local time since.
const serverNow = () => clock.server + (Date.now() - clock.local)
function timeLeft(ms) {
  if (ms <= 0) return "expired"
  const s = Math.ceil(ms / 1000)
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0") + " left"
}
function tickCountdowns() {
  const now = serverNow()
  for (const td of document.querySelectorAll("#approvals td.countdown")) {
    const ms = Number(td.dataset.deadline) - now
    td.textContent = timeLeft(ms)
    td.classList.toggle("urgent", ms < 15000)
  }
}
async function answer(id, digest, decision) {
  const res = await fetch("/api/approvals/" + encodeURIComponent(id), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ decision, digest }) })
  const body = await res.json().catch(() => ({}))
  $("#notice").textContent = res.ok ? "" : "Not answered (" + res.status + "): " + (body.error || "no reason given")
  $("#notice").hidden = res.ok
  refresh()
}
function renderApprovals(list, viewer) {
  const body = $("#approvals tbody"); body.replaceChildren()
  if (list.length === 0) { const tr = document.createElement("tr"); tr.append(cell("No pending approvals", "empty")); body.append(tr); return }
  for (const a of list) {
    const tr = document.createElement("tr"); tr.dataset.id = a.id
    const countdown = cell("", "countdown"); countdown.dataset.deadline = String(a.deadline)
    tr.append(cell(time(a.time)), cell(a.principal || "-"), cell(a.server + "/" + a.tool), cell(a.reason, "reason"), cell(JSON.stringify(a.args)), countdown)
    const td = document.createElement("td")
    const own = a.principal === viewer.id
    const choices = viewer.role !== "approver" ? [] : own ? [["Deny", "deny"]] : [["Approve", "allow"], ["Deny", "deny"]]
    if (viewer.role === "approver" && own) td.append("your own call: another approver decides ")
    for (const [label, decision] of choices) {
      const b = node("button", label); b.dataset.decision = decision
      b.onclick = () => answer(a.id, a.digest, decision); td.append(b)
    }
    tr.append(td); body.append(tr)
  }
  tickCountdowns()
}
async function revokeConnection(principal, server) {
  const res = await fetch("/api/connections/revoke", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ principal, server }) })
  const body = await res.json().catch(() => ({}))
  $("#notice").textContent = res.ok ? "" : "Not revoked (" + res.status + "): " + (body.error || "no reason given")
  $("#notice").hidden = res.ok
  refresh()
}
function renderConnections(list) {
  $("#connections").hidden = list === undefined
  if (list === undefined) return
  const body = $("#connections-table tbody"); body.replaceChildren()
  if (list.length === 0) { const tr = document.createElement("tr"); tr.append(cell("No connections", "empty")); body.append(tr); return }
  for (const c of list) {
    const tr = document.createElement("tr"); tr.dataset.principal = c.principal; tr.dataset.server = c.server
    const td = document.createElement("td"); const b = node("button", "Revoke"); b.onclick = () => revokeConnection(c.principal, c.server); td.append(b)
    tr.append(cell(c.principal), cell(c.server), cell(c.grant), cell(new Date(c.obtainedAtMs).toLocaleString()), td)
    body.append(tr)
  }
}
function renderFilters(options) {
  const shown = JSON.stringify(options)
  if (shown === shownOptions) return
  shownOptions = shown
  for (const key of FILTERS) {
    const select = $("#filter-" + key)
    const values = options[key].includes(filters[key]) || filters[key] === "" ? options[key] : [filters[key], ...options[key]]
    const all = node("option", "all"); all.value = ""
    select.replaceChildren(all, ...values.map((v) => { const o = node("option", v); o.value = v; return o }))
    select.value = filters[key]
  }
}
function renderCalls(calls) {
  const body = $("#calls tbody"); body.replaceChildren()
  if (calls.length === 0) { const tr = document.createElement("tr"); tr.append(cell("No calls match", "empty")); body.append(tr) }
  for (const c of calls) {
    const tr = document.createElement("tr"); tr.dataset.id = String(c.id); tr.dataset.outcome = c.outcome; tr.dataset.principal = c.principal || ""
    if (c.id === selected) tr.className = "selected"
    const policy = c.decision ? c.decision + (c.rule ? " (" + c.rule + ")" : "") : "-"
    const hooks = c.hooks.map((h) => h.id + ":" + h.status).join(", ")
    const open = document.createElement("td"); const b = node("button", "#" + c.id, "open"); b.onclick = () => showDetail(c.id); open.append(b)
    tr.append(open, cell(time(c.time)), cell(c.principal || "-"), cell(c.server + "/" + c.tool), cell(policy), cell(c.approval || "-"), cell(c.approvedBy || "-", "approved-by"), cell(outcomeText(c.outcome), c.outcome), cell(c.durationMs.toFixed(1)), cell(hooks, "hooks"))
    body.append(tr)
  }
}
function fact(list, label, value) { list.append(node("dt", label), node("dd", value == null || value === "" ? "-" : value)) }
function renderDetail(row) {
  const r = row.receipt || {}
  $("#detail-title").textContent = "#" + row.id + " " + row.server + "/" + row.tool
  const facts = $("#detail-facts"); facts.replaceChildren()
  fact(facts, "Call id", row.callId); fact(facts, "Time", new Date(row.time).toLocaleString()); fact(facts, "Principal", row.principal)
  fact(facts, "Client", row.client); fact(facts, "Downstream auth", row.authForm); fact(facts, "Grant", row.authGrant)
  fact(facts, "Claude tool_use_id", row.toolUseId); fact(facts, "Claude session", row.sessionId)
  fact(facts, "Outcome", outcomeText(row.claudeDecision || row.outcome)); fact(facts, "Duration", row.durationMs.toFixed(1) + " ms")
  fact(facts, "Sent downstream", row.sent === undefined ? "-" : row.sent ? "yes" : "no"); fact(facts, "Digest", row.digest || r.digest)
  fact(facts, "Error", row.error); fact(facts, "Tool definition changed", r.toolChanged ? "yes" : "no"); fact(facts, "Detached", (r.detached || []).join(", "))
  const hooks = $("#detail-hooks tbody"); hooks.replaceChildren()
  if ((r.hooks || []).length === 0) { const tr = document.createElement("tr"); tr.append(cell("No hooks ran", "empty")); hooks.append(tr) }
  for (const h of r.hooks || []) {
    const tr = document.createElement("tr"); tr.dataset.hook = h.id
    tr.append(cell(h.id), cell(h.event), cell(h.status, "status"), cell(h.failure || "-"), cell(h.ignored ? "yes" : "no"), cell(h.durationMs.toFixed(2)), cell(h.detached ? "yes" : "no"))
    hooks.append(tr)
  }
  $("#detail-policy").textContent = r.policy ? r.policy.decision + (r.policy.rule ? ", by rule " + r.policy.rule : ", by the default or a custom policy (no rule)") : "not reached"
  $("#detail-approval").textContent = r.approval ? r.approval.decision + " · via " + r.approval.source + (r.approval.by ? " · by " + r.approval.by : "") : "not asked"
  $("#detail-args").textContent = row.args === undefined ? "not captured (audit.capture is metadata)" : JSON.stringify(row.args, null, 2)
  $("#detail-result").textContent = row.result === undefined ? "not captured (audit.capture is metadata)" : JSON.stringify(row.result, null, 2)
}
async function showDetail(id) {
  selected = id
  for (const tr of document.querySelectorAll("#calls tbody tr")) tr.classList.toggle("selected", tr.dataset.id === String(id))
  $("#detail").hidden = false
  const res = await fetch("/api/calls/" + encodeURIComponent(id), { cache: "no-store" })
  if (selected !== id) return
  if (!res.ok) { $("#detail-title").textContent = "#" + id + ": error " + res.status; return }
  renderDetail(await res.json())
}
function stateUrl() {
  const params = new URLSearchParams({ minutes: "30" })
  for (const key of FILTERS) if (filters[key] !== "") params.set(key, filters[key])
  return "/api/state?" + params
}
async function refresh() {
  const seq = ++requested
  try {
    const res = await fetch(stateUrl(), { cache: "no-store" })
    const state = await res.json()
    if (seq < rendered) return
    rendered = seq
    if (!res.ok) { $("#status").textContent = "error " + res.status + ": " + state.error; return }
    clock = { server: state.now, local: Date.now() }
    $("#viewer").textContent = "Signed in as " + state.viewer.id + (state.viewer.role === "approver" ? " (approver: sees every call)" : " (caller: sees only its own calls)")
    $("#config-version").textContent = "config " + state.config.version; $("#config-version").title = "config sha256 " + state.config.hash
    renderFilters(state.options); renderApprovals(state.approvals, state.viewer); renderConnections(state.connections); renderCalls(state.calls)
    drawCalls($("#chart-calls svg"), state.series); drawLatency($("#chart-latency svg"), state.series)
    $("#truncated").hidden = !state.truncated
    $("#status").textContent = "live · " + new Date(state.now).toLocaleTimeString()
  } catch { $("#status").textContent = "disconnected" }
}
for (const key of FILTERS) $("#filter-" + key).addEventListener("change", (event) => { filters[key] = event.target.value; refresh() })
$("#filter-clear").addEventListener("click", () => { for (const key of FILTERS) { filters[key] = ""; $("#filter-" + key).value = "" } refresh() })
$("#detail-close").addEventListener("click", () => { selected = null; $("#detail").hidden = true })
refresh(); setInterval(refresh, 1000); setInterval(tickCountdowns, 250)
`
