/**
 * Cedar schemas for Interlock's request model, and validation of a policy set against one. A schema made from a
 * listing types `context.args` as the union of every tool's arguments, each optional (a conflicting one left out); a
 * policy scoped to one listed tool is validated against that tool's own schema. Errors name the line and column.
 */
import type { SchemaJson, Type, TypeOfAttribute } from "@cedar-policy/cedar-wasm/nodejs"
import type { Tool } from "@interlock/core"
import { Effect } from "effect"
import { CedarPolicyInvalid, CedarWasmFailed } from "./CedarErrors.ts"
import { type CedarPolicyInfo, type CedarPolicySet, invalidAt } from "./CedarPolicySet.ts"
import { type CedarWasm, guarded } from "./CedarWasm.ts"
import { canonicalId, NAMESPACE, TOOL, uidKey } from "./RequestModel.ts"

/** A Cedar schema: Cedar's schema text, or its JSON form. */
export type CedarSchemaInput = string | SchemaJson<string>

type Attributes = Record<string, TypeOfAttribute<string>>

const STRING: Type<string> = { type: "String" }
const BOOLEAN: Type<string> = { type: "Boolean" }
const MAX_DEPTH = 16

const record = (attributes: Attributes): Type<string> => ({ type: "Record", attributes })

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The Cedar type of a JSON Schema, or undefined when Cedar has none for it (a union, `null`, an
 * untyped value). `number` is Long: a fraction is denied at run time (see RequestModel.ts).
 */
export const cedarType = (schema: unknown, depth = 0): Type<string> | undefined => {
  if (!isObject(schema) || depth > MAX_DEPTH) return undefined
  switch (schema.type) {
    case "string":
      return STRING
    case "integer":
    case "number":
      return { type: "Long" }
    case "boolean":
      return BOOLEAN
    case "array": {
      const element = cedarType(schema.items, depth + 1)
      return element === undefined ? undefined : { type: "Set", element }
    }
    case "object":
      return record(objectAttributes(schema, depth + 1, false))
    default:
      return undefined
  }
}

/** The attributes of an object schema; `required` from the schema, or every one optional. */
const objectAttributes = (schema: Record<string, unknown>, depth: number, allOptional: boolean): Attributes => {
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((key) => typeof key === "string") : []
  )
  const attributes: Attributes = {}
  for (const [key, property] of Object.entries(properties)) {
    const type = cedarType(property, depth)
    if (type !== undefined) attributes[key] = { ...type, required: !allOptional && required.has(key) }
  }
  return attributes
}

/** `context.args` for a set of tools: one tool's exact arguments, or the union of several, all optional. */
const argsType = (tools: ReadonlyArray<Tool>): Type<string> => {
  if (tools.length === 1) return record(objectAttributes(tools[0].inputSchema, 0, false))
  const merged: Attributes = {}
  const conflicting = new Set<string>()
  for (const tool of tools) {
    for (const [key, type] of Object.entries(objectAttributes(tool.inputSchema, 0, true))) {
      const known = merged[key]
      if (known === undefined && !conflicting.has(key)) merged[key] = type
      else if (known !== undefined && JSON.stringify(known) !== JSON.stringify(type)) {
        delete merged[key]
        conflicting.add(key)
      }
    }
  }
  return record(merged)
}

const context = (args: Type<string> | undefined): Type<string> =>
  record({
    ...(args === undefined ? {} : { args: { ...args, required: true } }),
    client: { ...STRING, required: true },
    era: { ...STRING, required: false }
  })

/** The Cedar schema (JSON form) of the request model, with `context.args` typed by `tools`. */
export const cedarSchema = (tools: ReadonlyArray<Tool>): SchemaJson<string> => {
  const shape = (names: ReadonlyArray<string>, booleans: ReadonlyArray<string> = []) =>
    record(
      Object.fromEntries([
        ...names.map((name) => [name, { ...STRING, required: true }]),
        ...booleans.map((name) => [name, { ...BOOLEAN, required: true }])
      ])
    )
  const applies = (resource: string, args?: Type<string>) => ({
    appliesTo: { principalTypes: ["Principal"], resourceTypes: [resource], context: context(args) }
  })
  return {
    [NAMESPACE]: {
      entityTypes: {
        Role: {},
        Principal: { memberOfTypes: ["Role"] },
        Tool: {
          shape: shape(["server", "name"], ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"])
        },
        Resource: { shape: shape(["server", "uri"]) },
        Prompt: { shape: shape(["server", "name"]) }
      },
      actions: {
        callTool: applies("Tool", argsType(tools)),
        listTools: applies("Tool"),
        readResource: applies("Resource"),
        // Prompts' arguments are not in a tool listing: a policy that reads them does not validate (yet).
        getPrompt: applies("Prompt", record({}))
      }
    }
  }
}

/** The schema in Cedar's own text format (for `interlock schema --cedar`). */
export const cedarSchemaText = (
  wasm: CedarWasm,
  schema: SchemaJson<string>
): Effect.Effect<string, CedarWasmFailed> => {
  const answer = guarded(() => wasm.schemaToText(schema))
  return answer?.type === "success"
    ? Effect.succeed(answer.text)
    : Effect.fail(new CedarWasmFailed({ detail: "Cedar could not print the schema" }))
}

/** Validates `policies` (default all) of `set` against `schema`; every error, with its position. */
export const validationErrors = (
  wasm: CedarWasm,
  set: CedarPolicySet,
  schema: CedarSchemaInput,
  policies: ReadonlyArray<CedarPolicyInfo> = set.policies
): Effect.Effect<ReadonlyArray<CedarPolicyInvalid>, CedarWasmFailed> =>
  Effect.suspend(() => {
    if (policies.length === 0) return Effect.succeed([])
    const answer = guarded(() =>
      wasm.validate({
        schema,
        policies: { staticPolicies: Object.fromEntries(policies.map((policy) => [policy.id, policy.text])) }
      })
    )
    if (answer === undefined) {
      return Effect.fail(new CedarWasmFailed({ detail: "Cedar could not validate the policies" }))
    }
    if (answer.type === "failure") {
      return Effect.succeed(
        answer.errors.map((error) =>
          new CedarPolicyInvalid({ source: set.source, detail: `the Cedar schema is not valid: ${error.message}` })
        )
      )
    }
    return Effect.succeed(
      answer.validationErrors.map((error) =>
        invalidAt(set, error.error, set.byId.get(error.policyId)?.offset ?? 0, error.policyId)
      )
    )
  })

/** Validates the whole set against `schema`, failing with the first error. */
export const validatePolicySet = (
  wasm: CedarWasm,
  set: CedarPolicySet,
  schema: CedarSchemaInput
): Effect.Effect<void, CedarPolicyInvalid | CedarWasmFailed> =>
  Effect.flatMap(
    validationErrors(wasm, set, schema),
    (errors) => (errors.length === 0 ? Effect.void : Effect.fail(errors[0]))
  )

/**
 * Validates the set against a listing (see the module's header): policies scoped to one listed
 * tool against that tool's schema, the rest against the listing's. Every error, in file order.
 */
export const validateAgainstListing = (
  wasm: CedarWasm,
  set: CedarPolicySet,
  tools: ReadonlyArray<Tool>
): Effect.Effect<ReadonlyArray<CedarPolicyInvalid>, CedarWasmFailed> =>
  Effect.gen(function*() {
    const byKey = new Map(
      tools.map((tool) => [uidKey({ type: TOOL, id: canonicalId(tool.serverId, tool.name) }), tool])
    )
    const groups = new Map<Tool | undefined, Array<CedarPolicyInfo>>()
    for (const policy of set.policies) {
      const tool = policy.resource === undefined ? undefined : byKey.get(policy.resource)
      groups.set(tool, [...(groups.get(tool) ?? []), policy])
    }
    const errors: Array<CedarPolicyInvalid> = []
    for (const [tool, policies] of groups) {
      errors.push(...yield* validationErrors(wasm, set, cedarSchema(tool === undefined ? tools : [tool]), policies))
    }
    return errors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0))
  })
