import { assert, describe, it } from "@effect/vitest"
import { ProtocolError as SdkProtocolError } from "@modelcontextprotocol/client"
import { fromSdk } from "../src/Failures.ts"

describe("a server's JSON-RPC error as core's ProtocolError", () => {
  it("MissingRequiredClientCapability keeps only the names of the capabilities it requires", () => {
    const data = {
      requiredCapabilities: {
        sampling: { note: "sk-secret-from-the-server-0001" },
        "elicitation": {},
        "no spaces allowed": {}
      },
      other: "sk-secret-from-the-server-0002"
    }
    const error = fromSdk(
      "s",
      new SdkProtocolError(-32021, "needs sampling", data),
      () => undefined,
      "during tools/call"
    )
    assert.strictEqual(error._tag, "ProtocolError")
    if (error._tag !== "ProtocolError") return
    assert.strictEqual(error.code, -32021)
    assert.deepStrictEqual(error.requiredCapabilities, ["sampling", "elicitation"])
    assert.notInclude(JSON.stringify(error), "sk-secret-from-the-server")
  })

  it("another code, or data that is not a capabilities object, carries no capability names", () => {
    const other = fromSdk(
      "s",
      new SdkProtocolError(-32602, "bad", { requiredCapabilities: { sampling: {} } }),
      () => undefined,
      "during tools/call"
    )
    const array = fromSdk(
      "s",
      new SdkProtocolError(-32021, "needs", { requiredCapabilities: ["sampling"] }),
      () => undefined,
      "during tools/call"
    )
    for (const error of [other, array]) {
      assert.strictEqual(error._tag, "ProtocolError")
      if (error._tag === "ProtocolError") assert.isUndefined(error.requiredCapabilities)
    }
  })
})
