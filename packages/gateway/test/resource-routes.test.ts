import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { linkedUris, MAX_LINKS, ResourceRoutes } from "../src/calls/ResourceRoutes.ts"

const SERVERS = ["alpha", "beta", "gamma"] as const
const Uri = Schema.String.check(Schema.isPattern(/^[a-z]{1,5}:\/\/[a-z0-9/]{0,12}$/))
// Which servers list a URI: one flag per server.
const Claims = Schema.Tuple([Schema.Boolean, Schema.Boolean, Schema.Boolean])

describe("resource routes", () => {
  it.effect.prop(
    "a listed URI routes to the first server in config order that listed it, or nowhere",
    [Uri, Claims],
    ([uri, claims]) =>
      Effect.sync(() => {
        const routes = new ResourceRoutes(SERVERS)
        for (const [at, id] of SERVERS.entries()) {
          routes.listed(id, claims[at] ? [uri, `${uri}-other`] : [`${uri}-other`])
        }
        const first = SERVERS.find((_id, at) => claims[at])
        assert.strictEqual(routes.route(uri), first)
      })
  )

  it.effect.prop("listing beats a link, a link beats a template, whatever the server order", [
    Uri,
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 }))
  ], ([uri, at]) =>
    Effect.sync(() => {
      const routes = new ResourceRoutes(SERVERS)
      const [templated, linker, lister] = [SERVERS[at], SERVERS[(at + 1) % 3], SERVERS[(at + 2) % 3]]
      routes.templates(templated, ["{+anything}"])
      assert.strictEqual(routes.route(uri), templated)
      routes.linked(linker, [uri])
      assert.strictEqual(routes.route(uri), linker)
      routes.listed(lister, [uri])
      assert.strictEqual(routes.route(uri), lister)
      routes.listed(lister, [])
      assert.strictEqual(routes.route(uri), linker, "a new listing replaces the old one")
    }))

  it.effect.prop(
    "junk templates and URIs never throw; they just do not route",
    [Schema.String, Schema.String],
    ([template, uri]) =>
      Effect.sync(() => {
        const routes = new ResourceRoutes(["only"])
        routes.templates("only", [template])
        const routed = routes.route(uri)
        assert.isTrue(routed === undefined || routed === "only")
        assert.strictEqual(routes.templateOwner(template), "only")
      })
  )

  it("routes by URI template variables, and names a template's owner by its exact text", () => {
    const routes = new ResourceRoutes(SERVERS)
    routes.templates("beta", ["demo://text/{id}"])
    routes.templates("gamma", ["files:///{+path}"])
    assert.strictEqual(routes.route("demo://text/7"), "beta")
    assert.strictEqual(routes.route("files:///etc/hosts"), "gamma")
    assert.isUndefined(routes.route("demo://blob/7"))
    assert.strictEqual(routes.templateOwner("demo://text/{id}"), "beta")
    assert.isUndefined(routes.templateOwner("demo://text/{other}"))
    routes.listed("nobody", ["x://y"])
    assert.isUndefined(routes.route("x://y"), "an unknown server id is ignored")
  })

  it("remembers at most MAX_LINKS links per server, forgetting the oldest first", () => {
    const routes = new ResourceRoutes(["alpha"])
    routes.linked("alpha", Array.from({ length: MAX_LINKS }, (_, i) => `l://${i}`))
    routes.linked("alpha", ["l://0"]) // used again: now the newest
    routes.linked("alpha", ["l://new"])
    assert.strictEqual(routes.route("l://0"), "alpha")
    assert.isUndefined(routes.route("l://1"))
    assert.strictEqual(routes.route("l://new"), "alpha")
  })

  it("finds resource links and embedded resources in a tool result's content", () => {
    const content = [
      { type: "text", text: "demo://not/a/link" },
      { type: "resource_link", uri: "demo://a", name: "a" },
      { type: "resource", resource: { uri: "demo://b", text: "b" } },
      { type: "resource", resource: { text: "no uri" } },
      null,
      "junk"
    ]
    assert.deepStrictEqual(linkedUris(content), ["demo://a", "demo://b"])
  })
})
