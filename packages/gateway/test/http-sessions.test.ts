/**
 * The session table of the HTTP face: its caps hold whatever hosts do, and idle sessions expire
 * on the clock (TestClock, no real time) while busy ones stay.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import { parseOrigin } from "../src/config/Origin.ts"
import type { SessionLimits } from "../src/config/Plan.ts"
import { originAllowed } from "../src/front/http/HttpGuard.ts"
import { type LiveSession, SessionCapReached, SessionTable, sweepIdle } from "../src/front/http/mcp/HttpSessions.ts"

const between = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))

interface FakeSession extends LiveSession {
  busy: boolean
  closed: boolean
}

const fake = (): FakeSession => {
  const session: FakeSession = {
    busy: false,
    closed: false,
    close: async () => void (session.closed = true)
  }
  return session
}

const LIMITS: SessionLimits = { idleMs: 60_000, maxSessions: 5, maxPerPrincipal: 3 }

/** A host's step: open a session as one of three principals (or anonymous), or end one of the open ones. */
const Step = Schema.Struct({ principal: between(0, 3), end: Schema.Boolean, which: between(0, 9) })

describe("the HTTP session table", () => {
  it.effect.prop("no principal ever has more than its cap, nor the gateway more than its own, whatever hosts do", [
    Schema.Array(Step)
  ], ([steps]) =>
    Effect.sync(() => {
      const table = new SessionTable<FakeSession>(LIMITS, () => 0)
      const open: Array<{ readonly id: string; readonly principal: string | undefined }> = []
      let next = 0
      for (const step of steps) {
        if (step.end && open.length > 0) {
          const [gone] = open.splice(step.which % open.length, 1)
          table.remove(gone.id)
          continue
        }
        const principal = step.principal === 0 ? undefined : `p${step.principal}`
        const mine = open.filter((entry) => entry.principal === principal).length
        const reservation = table.reserve(principal)
        if (reservation instanceof SessionCapReached) {
          // Refused exactly when a cap is reached, naming the cap that is.
          assert.isTrue(mine >= LIMITS.maxPerPrincipal || open.length >= LIMITS.maxSessions)
          assert.strictEqual(
            reservation.cap,
            mine >= LIMITS.maxPerPrincipal ? "maxSessionsPerPrincipal" : "maxSessions"
          )
          assert.include(reservation.message, `listen.${reservation.cap}`)
          continue
        }
        assert.isTrue(mine < LIMITS.maxPerPrincipal && open.length < LIMITS.maxSessions)
        const id = `s${next++}`
        if (step.which % 4 === 0) {
          table.release(reservation) // an initialize the transport turned down
          continue
        }
        table.open(reservation, id, fake())
        open.push({ id, principal })
      }
      assert.strictEqual(table.size, open.length)
    }))

  it.effect("an idle session expires on the clock and is closed; a busy one stays; activity restarts the count", () =>
    Effect.gen(function*() {
      const clock = yield* Clock.Clock
      const table = new SessionTable<FakeSession>(LIMITS, () => clock.currentTimeMillisUnsafe())
      yield* Effect.forkChild(sweepIdle(table, LIMITS))
      const idle = fake()
      const busy = fake()
      const active = fake()
      busy.busy = true
      for (const [id, session] of [["idle", idle], ["busy", busy], ["active", active]] as const) {
        const reservation = table.reserve(undefined)
        assert.notInstanceOf(reservation, SessionCapReached)
        if (!(reservation instanceof SessionCapReached)) table.open(reservation, id, session)
      }
      yield* TestClock.adjust("45 seconds")
      assert.isDefined(table.get("active")) // a request on it
      assert.strictEqual(table.size, 3)
      yield* TestClock.adjust("30 seconds")
      assert.isTrue(idle.closed)
      assert.isUndefined(table.get("idle"))
      assert.isFalse(active.closed)
      yield* TestClock.adjust("60 seconds")
      assert.isTrue(active.closed)
      assert.isFalse(busy.closed)
      assert.strictEqual(table.size, 1)
      // Its place is free again.
      assert.notInstanceOf(table.reserve(undefined), SessionCapReached)
    }))
})

describe("allowed origins", () => {
  it.effect.prop("an origin admits its own scheme, host and port only", [
    between(1, 65535),
    between(1, 65535),
    Schema.Literals(["localhost", "127.0.0.1", "[::1]", "example.com"])
  ], ([allowedPort, port, host]) =>
    Effect.sync(() => {
      const allowed = [parseOrigin(`http://${host}:${allowedPort}`)!]
      assert.strictEqual(originAllowed(`http://${host}:${port}`, allowed), port === allowedPort)
      assert.isFalse(originAllowed(`https://${host}:${allowedPort}`, allowed))
      assert.isFalse(originAllowed(`http://${host}.evil.example:${allowedPort}`, allowed))
    }))

  it.effect("a default port is the same origin, and what is not an origin is refused", () =>
    Effect.sync(() => {
      assert.strictEqual(parseOrigin("HTTP://LocalHost:80"), "http://localhost")
      for (
        const junk of [
          "localhost",
          "null",
          "http://localhost:3000/app",
          "http://user@localhost:3000",
          "file:///etc",
          "http://localhost:3000?x"
        ]
      ) {
        assert.isUndefined(parseOrigin(junk), junk)
        assert.isFalse(originAllowed(junk, ["http://localhost:3000"]), junk)
      }
    }))
})
