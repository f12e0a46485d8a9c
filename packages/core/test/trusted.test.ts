import { assert, describe, it } from "@effect/vitest"
import { Effect, Equal, Schema } from "effect"
import { HookContext, ToolCall, ToolResult } from "../src/index.ts"
import { makeTrusted } from "../src/internal/Trusted.ts"

// What a caller can observe of an instance: its class, its own fields, its encoding, its equality.
const sameInstance = <S extends Schema.Top & (new(fields: any) => any)>(schema: S, fields: object) => {
  const made = new schema(fields)
  const trusted = makeTrusted(schema, fields)
  assert.instanceOf(trusted, schema)
  assert.deepStrictEqual(Object.entries(trusted), Object.entries(made))
  assert.deepStrictEqual(
    Schema.encodeUnknownSync(schema as any)(trusted),
    Schema.encodeUnknownSync(schema as any)(made)
  )
  assert.isTrue(Equal.equals(trusted, made))
}

const callFields = Schema.Struct({
  serverId: Schema.String,
  name: Schema.String,
  args: Schema.Record(Schema.String, Schema.Json),
  callId: Schema.String
})

describe("makeTrusted", () => {
  it.effect.prop("builds the same ToolCall as new, digest included", [callFields], ([fields]) =>
    Effect.sync(() => {
      sameInstance(ToolCall, fields)
      assert.strictEqual(makeTrusted(ToolCall, fields).digest, new ToolCall(fields as any).digest)
    }))

  it.effect.prop(
    "builds the same ToolResult and HookContext as new",
    [Schema.String, Schema.Boolean, Schema.String],
    ([text, isError, serverId]) =>
      Effect.sync(() => {
        sameInstance(ToolResult, { content: [{ type: "text", text }], isError })
        assert.strictEqual(makeTrusted(ToolResult, { content: [{ type: "text", text }] }).text, text)
        sameInstance(HookContext, { client: "c", serverId, assigns: { text } })
      })
  )
})
