/**
 * Where the `oauth` form's grants and registrations outlive the process: a SQLite file (`credentials.path`, each
 * write committed before it returns), every value AES-256-GCM sealed under a key derived from `credentials.key` and
 * bound to its row (principal and server): a row moved to another principal, or changed, does not open (nor is it
 * deleted: the right key opens it again). Opened grants are kept until the file changes.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"

/** A grant as the vault keeps it. */
export interface StoredGrant {
  readonly principal: string
  readonly server: string
  readonly id: string
  readonly obtainedAtMs: number
  readonly tokens: unknown
}

/** A row of the grants, as `interlock credentials list` shows it: never its tokens. */
export interface GrantRow {
  readonly principal: string
  readonly server: string
  readonly id: string
  readonly obtainedAtMs: number
  /** Whether it opens with the key (false: another key's, or changed). */
  readonly opens: boolean
}

/** The vault of one gateway. */
export interface GrantVault {
  /** Every registration that opens with the key. */
  readonly clients: () => ReadonlyArray<{ readonly server: string; readonly information: unknown }>
  /** The grant of `principal` toward `server`, when there is one that opens. */
  readonly grant: (principal: string, server: string) => StoredGrant | undefined
  /** The grants' rows, of one principal and/or one server when given. */
  readonly list: (filter: { readonly principal?: string; readonly server?: string }) => ReadonlyArray<GrantRow>
  /** Deletes the grants of one principal and/or one server (at least one given); how many it deleted. */
  readonly revoke: (filter: { readonly principal?: string; readonly server?: string }) => number
  readonly saveGrant: (grant: StoredGrant) => void
  readonly forgetGrant: (principal: string, server: string) => void
  readonly saveClient: (server: string, information: unknown) => void
  readonly forgetClient: (server: string) => void
  readonly close: () => void
}

const IV_BYTES = 12
/** The most opened grants kept between changes of the file. */
const MAX_OPENED = 10_000
const TAG_BYTES = 16

/** The 32-byte key for a configured secret (HKDF-SHA256). */
const vaultKey = (secret: string): Buffer =>
  Buffer.from(hkdfSync("sha256", secret, "interlock", "interlock credentials v1", 32))

const seal = (key: Buffer, aad: string, value: unknown): Buffer => {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(aad))
  const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()])
  return Buffer.concat([iv, body, cipher.getAuthTag()])
}

/** The value sealed in `sealed` for `aad`, or undefined when it does not open (another key, row or content). */
const open = (key: Buffer, aad: string, sealed: Uint8Array): unknown => {
  try {
    const data = Buffer.from(sealed)
    const decipher = createDecipheriv("aes-256-gcm", key, data.subarray(0, IV_BYTES)).setAAD(Buffer.from(aad))
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES))
    const text = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()])
    return JSON.parse(text.toString("utf8"))
  } catch {
    return undefined
  }
}

const grantAad = (principal: string, server: string) => `grant\u0000${principal}\u0000${server}`
const clientAad = (server: string) => `client\u0000${server}`

/** Opens (creating, readable by its owner only) the vault at `file` with `secret`. */
export const openGrantVault = (file: string, secret: string): GrantVault => {
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true })
    closeSync(openSync(file, "a", 0o600))
  }
  chmodSync(file, 0o600)
  const db = new DatabaseSync(file)
  db.exec(
    "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;" +
      "CREATE TABLE IF NOT EXISTS grants (principal TEXT NOT NULL, server TEXT NOT NULL, id TEXT NOT NULL, " +
      "obtained_at INTEGER NOT NULL, sealed BLOB NOT NULL, PRIMARY KEY (principal, server));" +
      "CREATE TABLE IF NOT EXISTS clients (server TEXT PRIMARY KEY, sealed BLOB NOT NULL);"
  )
  const key = vaultKey(secret)
  const putGrant = db.prepare(
    "INSERT INTO grants (principal, server, id, obtained_at, sealed) VALUES (?, ?, ?, ?, ?) " +
      "ON CONFLICT (principal, server) DO UPDATE SET id = excluded.id, obtained_at = excluded.obtained_at, " +
      "sealed = excluded.sealed"
  )
  const dropGrant = db.prepare("DELETE FROM grants WHERE principal = ? AND server = ?")
  const putClient = db.prepare(
    "INSERT INTO clients (server, sealed) VALUES (?, ?) ON CONFLICT (server) DO UPDATE SET sealed = excluded.sealed"
  )
  const dropClient = db.prepare("DELETE FROM clients WHERE server = ?")
  const getGrant = db.prepare("SELECT id, obtained_at, sealed FROM grants WHERE principal = ? AND server = ?")
  // The grants opened since the file last changed: another connection's commit (the CLI's revoke, another
  // process) changes `data_version`, which empties the cache; this connection's own writes update it.
  const dataVersion = db.prepare("PRAGMA data_version")
  const opened = new Map<string, StoredGrant | undefined>()
  let version: unknown
  const current = () => {
    const now = (dataVersion.get() as { data_version: number }).data_version
    if (now !== version || opened.size > MAX_OPENED) {
      opened.clear()
      version = now
    }
  }
  const where = "WHERE (? IS NULL OR principal = ?) AND (? IS NULL OR server = ?)"
  const params = (filter: { readonly principal?: string; readonly server?: string }) => {
    const principal = filter.principal ?? null
    const server = filter.server ?? null
    return [principal, principal, server, server] as const
  }
  return {
    clients: () =>
      db.prepare("SELECT server, sealed FROM clients").all().flatMap((row) => {
        const { sealed, server } = row as { server: string; sealed: Uint8Array }
        const information = open(key, clientAad(server), sealed)
        return information === undefined ? [] : [{ server, information }]
      }),
    grant: (principal, server) => {
      current()
      const cacheKey = grantAad(principal, server)
      if (opened.has(cacheKey)) return opened.get(cacheKey)
      const row = getGrant.get(principal, server) as
        | { id: string; obtained_at: number; sealed: Uint8Array }
        | undefined
      const tokens = row === undefined ? undefined : open(key, cacheKey, row.sealed)
      const grant = row === undefined || tokens === undefined
        ? undefined
        : { principal, server, id: row.id, obtainedAtMs: row.obtained_at, tokens }
      opened.set(cacheKey, grant)
      return grant
    },
    list: (filter) =>
      db.prepare(`SELECT principal, server, id, obtained_at, sealed FROM grants ${where} ORDER BY 1, 2`)
        .all(...params(filter)).map((row) => {
          const { id, obtained_at, principal, sealed, server } = row as {
            principal: string
            server: string
            id: string
            obtained_at: number
            sealed: Uint8Array
          }
          const opens = open(key, grantAad(principal, server), sealed) !== undefined
          return { principal, server, id, obtainedAtMs: obtained_at, opens }
        }),
    revoke: (filter) => {
      if (filter.principal === undefined && filter.server === undefined) return 0
      opened.clear()
      return Number(db.prepare(`DELETE FROM grants ${where}`).run(...params(filter)).changes)
    },
    saveGrant: (grant) => {
      const aad = grantAad(grant.principal, grant.server)
      opened.delete(aad)
      putGrant.run(grant.principal, grant.server, grant.id, grant.obtainedAtMs, seal(key, aad, grant.tokens))
      opened.set(aad, grant)
    },
    forgetGrant: (principal, server) => {
      opened.delete(grantAad(principal, server))
      dropGrant.run(principal, server)
    },
    saveClient: (server, information) => void putClient.run(server, seal(key, clientAad(server), information)),
    forgetClient: (server) => void dropClient.run(server),
    close: () => db.close()
  }
}
