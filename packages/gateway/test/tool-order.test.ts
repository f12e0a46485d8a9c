import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { orderTools } from "../src/calls/ToolOrder.ts"
import { makeNamespace } from "../src/governance/Namespace.ts"

const SERVERS = ["files", "web", "db"] as const
const Listed = Schema.Array(Schema.Struct({ serverId: Schema.Literals(SERVERS), name: Schema.String, fingerprint: Schema.String }))

/** One server's answer per server, each in some order, arriving in some order: `keys` shuffle both. */
const shuffled = <A>(items: ReadonlyArray<A>, keys: ReadonlyArray<number>): ReadonlyArray<A> =>
  items.map((item, at) => ({ item, key: keys[at % Math.max(1, keys.length)] ?? at })).sort((a, b) => a.key - b.key).map(({ item }) => item)

describe("the order of a host's tools/list", () => {
  for (const mode of ["auto", "never"] as const) {
    const namespace = makeNamespace(SERVERS, mode)
    it.effect.prop(`any permutation of the servers' answers gives the same listing (namespace ${mode})`, [Listed, Schema.Array(Schema.Number)], ([listed, keys]) =>
      Effect.sync(() => {
        // A server lists a name once.
        const tools = listed.filter((tool, at) => listed.findIndex((t) => t.serverId === tool.serverId && t.name === tool.name) === at)
        const a = orderTools(tools, namespace.expose)
        const b = orderTools(shuffled(tools, keys), namespace.expose)
        return a.length === tools.length && a.every((tool, at) => tool === b[at])
      }))
  }

  it("sorts by the name the host sees, by code units", () => {
    const namespace = makeNamespace(SERVERS, "auto")
    const tools = [{ serverId: "web", name: "fetch" }, { serverId: "files", name: "write" }, { serverId: "files", name: "Read" }, { serverId: "db", name: "query" }]
      .map((tool) => ({ ...tool, fingerprint: "" }))
    assert.deepStrictEqual(orderTools(tools, namespace.expose).map((tool) => namespace.expose(tool.serverId, tool.name)), ["db__query", "files__Read", "files__write", "web__fetch"])
  })
})
