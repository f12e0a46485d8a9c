/**
 * The web console page: pending approvals with their countdowns (approve and deny for approvers, never on their
 * own calls), auth.oauth connections (revoke), filters, charts of calls per minute by outcome and of latency, the
 * recent calls, and one call's receipt. One static page whose inline script and style sheet are allowed by their
 * hashes in a strict Content-Security-Policy; it shows arguments and results only as the audit kept them, redacted.
 */
import { createHash } from "node:crypto"
import { CHART_SCRIPT } from "./ChartScript.ts"
import { PAGE_SCRIPT } from "./PageScript.ts"
import { PAGE_STYLES } from "./PageStyles.ts"

const SCRIPT = CHART_SCRIPT + PAGE_SCRIPT

const hash = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

const filter = (key: string, label: string) =>
  `<label>${label}<select id="filter-${key}" name="${key}"><option value="">all</option></select></label>`

const chart = (id: string, caption: string) =>
  `<figure class="chart" id="${id}"><figcaption>${caption}</figcaption><svg viewBox="0 0 560 240" width="560" ` +
  `height="240" role="img" aria-label="${caption}"></svg></figure>`

/** The console's HTML (self-contained: no external requests). */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Interlock console</title>
<style>${PAGE_STYLES}</style>
</head>
<body>
<h1>Interlock console <span id="status">connecting…</span> <span id="config-version"></span></h1>
<p id="viewer"></p>
<h2>Pending approvals</h2>
<p id="notice" class="warning" hidden></p>
<table id="approvals"><thead><tr><th>Time</th><th>Principal</th><th>Tool</th><th>Reason</th><th>Arguments (redacted)</th><th>Time left</th><th></th></tr></thead><tbody></tbody></table>
<section id="connections" hidden>
<h2>Connections</h2>
<table id="connections-table"><thead><tr><th>Principal</th><th>Server</th><th>Grant</th><th>Since</th><th></th></tr></thead><tbody></tbody></table>
</section>
<h2>Calls</h2>
<div class="filters" id="filters">${filter("principal", "Principal")}${filter("server", "Server")}${
  filter("tool", "Tool")
}${filter("outcome", "Outcome")}<button type="button" id="filter-clear">Clear filters</button></div>
<p id="truncated" class="warning" hidden>Only the newest audit rows are read: older calls are not in the charts or the filters.</p>
<div class="charts">${chart("chart-calls", "Calls per minute by outcome, last 30 minutes")}${
  chart("chart-latency", "Latency per minute, p50 and p95 (ms), last 30 minutes")
}</div>
<section id="detail" hidden>
<h2>Call <span id="detail-title"></span> <button type="button" id="detail-close">Close</button></h2>
<dl id="detail-facts"></dl>
<h3>Hooks</h3>
<table id="detail-hooks"><thead><tr><th>Hook</th><th>Event</th><th>Status</th><th>Failure</th><th>Ignored</th><th>ms</th><th>Detached</th></tr></thead><tbody></tbody></table>
<h3>Policy</h3><p id="detail-policy"></p>
<h3>Approval</h3><p id="detail-approval"></p>
<h3>Arguments (as audited, redacted)</h3><pre id="detail-args"></pre>
<h3>Result (as audited, redacted)</h3><pre id="detail-result"></pre>
</section>
<h2>Recent calls</h2>
<table id="calls"><thead><tr><th>#</th><th>Time</th><th>Principal</th><th>Tool</th><th>Policy</th><th>Approval</th><th>Approved by</th><th>Outcome</th><th>ms</th><th>Hooks (receipt)</th></tr></thead><tbody></tbody></table>
<script>${SCRIPT}</script>
</body>
</html>
`

/**
 * The page's response headers: a CSP that runs only the page's own script and style (by hash; no
 * inline handlers, no other source), fetches only from the gateway, and forbids framing.
 */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": [
    "default-src 'none'",
    `script-src ${hash(SCRIPT)}`,
    `style-src ${hash(PAGE_STYLES)}`,
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; "),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}
