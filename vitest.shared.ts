/** Settings every package's Vitest project shares: run the workspace packages from their sources. */
import { availableParallelism, tmpdir } from "node:os"
import * as path from "node:path"
import { defaultClientConditions, defaultServerConditions } from "vite"

/** The export condition under which each package's `exports` point at its `.ts` sources. */
export const SOURCE_CONDITION = "@interlock/source"

/**
 * Resolve `@interlock/*` to `src/` (never to a built `dist/`), in the test process (Vite reads
 * `ssr.resolve.conditions` for Node-environment tests and passes them to the workers) and in the
 * Node processes that tests spawn (through NODE_OPTIONS, which they inherit).
 */
export const sourceConditions = {
  resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
  ssr: {
    resolve: {
      conditions: [SOURCE_CONDITION, ...defaultServerConditions.filter((condition) => condition !== "module")]
    }
  },
  test: {
    // Node's compile cache for every child that inherits the environment (scripts/test-node gives it to the rest):
    // a spawned CLI or server spends most of its start-up compiling the same effect and SDK files.
    env: {
      NODE_OPTIONS: `--conditions=${SOURCE_CONDITION}`,
      NODE_COMPILE_CACHE: path.join(tmpdir(), "interlock-test-compile-cache")
    },
    // Vitest's default is one fewer than the cores (one worker, so one file at a time, on two cores). Most files
    // wait on child processes and sockets, so one more worker than the cores keeps both busy.
    maxWorkers: availableParallelism() + 1,
    // Files share the cores, so a CPU-bound test (a property over thousands of inputs) may take several times its
    // time alone. A test that needs longer still says so itself.
    testTimeout: 30_000,
    // The CLI bundled from the sources once per run, for the tests that start it as a process (vitest.cli.ts).
    globalSetup: [path.join(import.meta.dirname, "vitest.cli.ts")],
    // A worker keeps its modules from file to file: no test changes process-wide state (env, cwd, mocks), and
    // effect, the MCP SDK and our sources then load once per worker rather than once per file.
    isolate: false,
    hookTimeout: 30_000
  }
}
