/**
 * The browser the console tests drive: Debian's /usr/bin/chromium when present, else the headless
 * shell that the `@sparticuz/chromium` npm package ships (brotli-compressed), inflated once into the
 * temp dir and renamed into place whole, so parallel test files never run a half-written binary.
 */
import { Effect } from "effect"
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  statSync
} from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import { createBrotliDecompress } from "node:zlib"
import { chromium } from "playwright-core"

const DEBIAN = "/usr/bin/chromium"

/** The npm package's headless shell, inflated on first use; an Error that says what is missing, otherwise. */
const packagedChromium = async (): Promise<string> => {
  let pkg: string
  try {
    // The package's export is build/index.js.
    pkg = path.dirname(path.dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")))
  } catch {
    throw new Error(`the console tests need Chromium: no ${DEBIAN} here, and no @sparticuz/chromium (run npm install)`)
  }
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`the console tests need Chromium: no ${DEBIAN} here, and @sparticuz/chromium ships linux-x64 only`)
  }
  const version = (JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8")) as { version: string }).version
  const dir = path.join(tmpdir(), `interlock-chromium-${version}`)
  const binary = path.join(dir, "chromium")
  if (existsSync(binary)) return binary
  mkdirSync(dir, { recursive: true })
  const partial = `${binary}.${process.pid}.partial`
  await pipeline(
    createReadStream(path.join(pkg, "bin", "chromium.br")),
    createBrotliDecompress(),
    createWriteStream(partial, { mode: 0o755 })
  )
  renameSync(partial, binary)
  return binary
}

/** Whether `file` is an executable regular file (not absent, nor a device mounted over it). */
const executable = (file: string) => {
  const stat = statSync(file, { throwIfNoEntry: false })
  return stat?.isFile() === true && (stat.mode & 0o111) !== 0
}

/** The Chromium executable the tests launch. */
export const chromiumPath = (): Promise<string> => executable(DEBIAN) ? Promise.resolve(DEBIAN) : packagedChromium()

/** A headless Chromium with a fresh profile, closed with the scope. */
export const launchChromium = Effect.acquireRelease(
  Effect.promise(async () =>
    // A fresh --user-data-dir (playwright takes it as the persistent context's directory).
    chromium.launchPersistentContext(mkdtempSync(path.join(tmpdir(), "interlock-chromium-")), {
      executablePath: await chromiumPath(),
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run"
      ]
    })
  ),
  (browser) => Effect.promise(() => browser.close())
)
