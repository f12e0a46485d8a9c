/**
 * The console API's refusals, each a Schema error with its HTTP status (HttpApiSchema's
 * `httpApiStatus`): the API declares them as its endpoints' errors, and HttpApi sends each as
 * `{ error }` JSON, the sentence saying what was wrong. A bad query parameter or body field is
 * ConsoleInputError (ConsoleInput.ts), sent as `{ error, param }`.
 */
import { Schema } from "effect"

/** A refusal class: `{ error }` on the wire, at `status`. */
const refusal = <Self>(identifier: string, status: number) =>
  Schema.Error<Self>(identifier)({ error: Schema.String }, { httpApiStatus: status })

/** What a principal that may not use the console is told, by every `/api/` path. */
export const CONSOLE_FORBIDDEN = "Forbidden: this token may not use the console"

/** The principal the guard passed may not use the console (403). */
export class ConsoleForbidden extends refusal<ConsoleForbidden>("ConsoleForbidden", 403) {}

/** A path's id is not one the API serves (not a call id, not an approval id): 404, as for a path no route serves. */
export class UnknownId extends refusal<UnknownId>("UnknownId", 404) {}

/** No call with this id among the newest audit rows the viewer may see (404). */
export class NoSuchCall extends refusal<NoSuchCall>("NoSuchCall", 404) {}

/** No pending approval with this id that the viewer may see (404). */
export class NoSuchApproval extends refusal<NoSuchApproval>("NoSuchApproval", 404) {}

/** The viewer may not give this answer (not an approver, or allowing its own call): 403. */
export class AnswerRefused extends refusal<AnswerRefused>("AnswerRefused", 403) {}

/** The pending call is not the one the approver was shown: its digest differs (409). */
export class DigestDiffers extends refusal<DigestDiffers>("DigestDiffers", 409) {}

/** The audit store could not be read (503); `error` is the store's message. */
export class StoreUnavailable extends refusal<StoreUnavailable>("StoreUnavailable", 503) {}

/** No grant of this principal toward this server that the viewer may see (404). */
export class NoSuchConnection extends refusal<NoSuchConnection>("NoSuchConnection", 404) {}
