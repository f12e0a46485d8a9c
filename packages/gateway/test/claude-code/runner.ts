/**
 * Runs inside a fresh network namespace (only loopback, brought up by the caller): starts the
 * fake Messages API, runs the real Claude Code CLI against it once, and writes a report (the
 * CLI's exit code and output, every request the API received, the namespace's interfaces) to the
 * file named by argv[3]. argv[2] names the run's spec (JSON: RunSpec of harness.ts).
 */
import { spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { startFakeApi } from "./fake-api.ts"

/** The network devices of this process's namespace (/proc/self/net/dev is per namespace). */
const netDevices = () =>
  readFileSync("/proc/self/net/dev", "utf8").split("\n").slice(2).map((line) => line.split(":")[0]!.trim()).filter((
    name
  ) => name !== "")

const [specFile, reportFile] = process.argv.slice(2)
const spec = JSON.parse(readFileSync(specFile!, "utf8"))
const { server, port, received } = await startFakeApi(spec.script)
const started = performance.now()
const child = spawn(spec.claude, ["-p", spec.prompt, "--output-format", "json", ...spec.args], {
  cwd: spec.cwd,
  env: { ...spec.env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` },
  stdio: ["ignore", "pipe", "pipe"]
})
let stdout = ""
let stderr = ""
child.stdout.on("data", (chunk) => (stdout += chunk))
child.stderr.on("data", (chunk) => (stderr += chunk))
const timer = setTimeout(() => child.kill("SIGKILL"), spec.timeoutMs)
const code = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
clearTimeout(timer)
const durationMs = performance.now() - started
server.close()
writeFileSync(reportFile!, JSON.stringify({ code, stdout, stderr, durationMs, received, interfaces: netDevices() }))
