/**
 * The two requests of the interceptor extension, over a hub's extension requests: `interceptors/list`
 * (every page) and `interceptor/invoke`, each answer decoded against its Schema (SEP §JSON-RPC
 * Methods). Any failure is typed: InterceptorsUnavailable at start, InterceptorFailed per invocation.
 */
import type { Timeout, TransportFailure } from "@interlock/core"
import { Effect, Exit, Schema } from "effect"
import type { ExtensionRequest } from "./ExtensionRequest.ts"
import { InterceptorFailed, InterceptorsUnavailable } from "./InterceptorErrors.ts"
import {
  type InterceptorDescriptor,
  type InvokeParams,
  ListResult,
  MutationResult,
  ValidationResult
} from "./InterceptorWire.ts"

/** A decoded answer of one invocation. */
export type Answer =
  | { readonly _tag: "Validation"; readonly result: ValidationResult }
  | { readonly _tag: "Mutation"; readonly result: MutationResult }

/** The most pages of `interceptors/list` read from one server. */
export const MAX_LIST_PAGES = 64

const decodeList = Schema.decodeUnknownExit(ListResult)
const decodeValidation = Schema.decodeUnknownExit(ValidationResult)
const decodeMutation = Schema.decodeUnknownExit(MutationResult)

const failureDetail = (error: TransportFailure | Timeout): string =>
  error._tag === "ProtocolError"
    ? `JSON-RPC error ${error.code}`
    : error._tag === "Timeout"
    ? "timed out"
    : error.detail

/** Every interceptor a server lists, every page of it, in its order. */
export const listInterceptors = (
  request: ExtensionRequest,
  serverId: string
): Effect.Effect<ReadonlyArray<InterceptorDescriptor>, InterceptorsUnavailable> =>
  Effect.gen(function*() {
    const all: Array<InterceptorDescriptor> = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const answer = yield* request(serverId, "interceptors/list", cursor === undefined ? {} : { cursor }).pipe(
        Effect.mapError((error) =>
          new InterceptorsUnavailable({ serverId, detail: `interceptors/list failed: ${failureDetail(error)}` })
        )
      )
      const decoded = decodeList(answer)
      if (Exit.isFailure(decoded)) {
        return yield* new InterceptorsUnavailable({
          serverId,
          detail: "interceptors/list answered with something that is not a list of interceptors"
        })
      }
      all.push(...decoded.value.interceptors)
      cursor = decoded.value.nextCursor
      if (cursor === undefined) return all
    }
    return yield* new InterceptorsUnavailable({
      serverId,
      detail: `interceptors/list gave more than ${MAX_LIST_PAGES} pages`
    })
  })

/**
 * Invokes one interceptor. The answer must be its type's result, and where it names its
 * interceptor or phase, this one's (SEP §Validator, §Mutator); anything else is junk. The request's
 * deadline is `deadlineMs`, else the `timeoutMs` it gives the interceptor.
 */
export const invokeInterceptor = (
  request: ExtensionRequest,
  serverId: string,
  descriptor: InterceptorDescriptor,
  params: InvokeParams,
  deadlineMs?: number
): Effect.Effect<Answer, InterceptorFailed> => {
  const failed = (kind: InterceptorFailed["kind"], detail: string) =>
    new InterceptorFailed({ serverId, interceptor: descriptor.name, kind, detail })
  return request(serverId, "interceptor/invoke", params, deadlineMs ?? params.timeoutMs).pipe(
    Effect.mapError((error) =>
      failed(
        error._tag === "Timeout" ? "timeout" : error._tag === "ProtocolError" ? "error" : "transport",
        failureDetail(error)
      )
    ),
    Effect.flatMap((raw): Effect.Effect<Answer, InterceptorFailed> => {
      const answer: Answer | undefined = descriptor.type === "validation"
        ? decoded(decodeValidation(raw), (result) => ({ _tag: "Validation", result }))
        : decoded(decodeMutation(raw), (result) => ({ _tag: "Mutation", result }))
      const named = answer?.result.interceptor
      const phase = answer?.result.phase
      if (
        answer === undefined || (named !== undefined && named !== descriptor.name) ||
        (phase ?? params.phase) !== params.phase
      ) {
        return Effect.fail(failed("junk", `the answer is not a ${descriptor.type} result for this invocation`))
      }
      return Effect.succeed(answer)
    })
  )
}

const decoded = <A>(exit: Exit.Exit<A, unknown>, wrap: (value: A) => Answer): Answer | undefined =>
  Exit.isSuccess(exit) ? wrap(exit.value) : undefined
