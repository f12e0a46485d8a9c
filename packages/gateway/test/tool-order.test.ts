import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { orderTools } from "../src/calls/ToolOrder.ts"

const SERVERS = ["files", "web", "db"] as const
const Listed = Schema.Array(Schema.Struct({ serverId: Schema.Literals(SERVERS), name: Schema.String }))

/** The servers' answers arriving in some order: `keys` shuffle whole answers, each server's own order kept. */
const arriving = <A extends { readonly serverId: string }>(
  items: ReadonlyArray<A>,
  keys: ReadonlyArray<number>
): ReadonlyArray<A> => {
  const order = [...SERVERS].map((serverId, at) => ({ serverId, key: keys[at] ?? at })).sort((a, b) => a.key - b.key)
  return order.flatMap(({ serverId }) => items.filter((item) => item.serverId === serverId))
}

describe("the order of a host's tools/list", () => {
  it.effect.prop(
    "whatever order the servers' answers arrive in, the listing is the same: servers in config order, each in " +
      "its own order",
    [Listed, Schema.Array(Schema.Number)],
    ([tools, keys]) =>
      Effect.sync(() => {
        const a = orderTools(tools, SERVERS)
        const b = orderTools(arriving(tools, keys), SERVERS)
        const expected = SERVERS.flatMap((serverId) => tools.filter((tool) => tool.serverId === serverId))
        return a.length === tools.length && a.every((tool, at) => tool === b[at] && tool === expected[at])
      })
  )

  it("keeps a server's own order (a first tool stays first)", () => {
    const tools = [{ serverId: "web", name: "fetch" }, { serverId: "files", name: "write" }, {
      serverId: "files",
      name: "read"
    }, { serverId: "db", name: "query" }]
    assert.deepStrictEqual(orderTools(tools, SERVERS).map((tool) => `${tool.serverId}/${tool.name}`), [
      "files/write",
      "files/read",
      "web/fetch",
      "db/query"
    ])
  })
})
