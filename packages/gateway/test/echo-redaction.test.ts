/**
 * The echo redaction of one operation's secrets: each secret of at least 8 characters is masked whole in any text,
 * the longest first; the same secrets give the same compiled redaction (an issued token is sent with many calls).
 */
import { assert, describe, it } from "@effect/vitest"
import { echoRedaction } from "../src/credentials/EchoRedaction.ts"
import { redactText } from "../src/governance/Redactor.ts"

describe("echoRedaction", () => {
  it("masks each secret whole, longest first, skips short values, and is compiled once per set of secrets", () => {
    const token = `eyJ${"a".repeat(797)}`
    const redactions = echoRedaction([token, "short", `${token}.sig`])
    assert.strictEqual(
      redactText(`got ${token}.sig and ${token}, short`, redactions),
      "got [REDACTED] and [REDACTED], short"
    )
    assert.strictEqual(echoRedaction([`${token}.sig`, token]), redactions)
    assert.notStrictEqual(echoRedaction([`${token}x`]), redactions)
    assert.deepStrictEqual(echoRedaction(["short"]), [])
  })
})
