/**
 * The errors only the Promise client (`Interlock.client`) rejects with, and `InterlockError`, which
 * recognizes every error Interlock rejects with. Like the call errors, none carries what a hook
 * raised, nor a call's arguments or results.
 */
import { Schema } from "effect"
import { ConfigError, Denied, HookFailed, ProtocolError, Timeout, TransportError } from "./Errors.ts"

/** The client was closed: the operation was refused, or it was in flight when `close()` ran. */
export class ClientClosed extends Schema.TaggedError<ClientClosed>()("ClientClosed", {}) {
  override get message(): string {
    return "the Interlock client is closed"
  }
}

/** The operation was interrupted before it ended, for example by the `signal` passed to it. */
export class Interrupted extends Schema.TaggedError<Interrupted>()("Interrupted", {}) {
  override get message(): string {
    return "the operation was interrupted"
  }
}

/**
 * The operation died of a defect (a bug: a transport or service that threw). What it threw is not
 * kept: it may quote arguments. The Effect API's `Cause` has it, for debugging.
 */
export class Defect extends Schema.TaggedError<Defect>()("Defect", {}) {
  override get message(): string {
    return "the operation failed with an unexpected defect"
  }
}

/** Every error `Interlock.client` rejects with, apart from the failures of Layers the app passed in. */
export type InterlockError =
  | Denied
  | HookFailed
  | Timeout
  | TransportError
  | ProtocolError
  | ConfigError
  | ClientClosed
  | Interrupted
  | Defect

const CLASSES = [
  Denied,
  HookFailed,
  Timeout,
  TransportError,
  ProtocolError,
  ConfigError,
  ClientClosed,
  Interrupted,
  Defect
] as const

/** Whether a value is one of Interlock's errors. */
const isInterlockError = (value: unknown): value is InterlockError => CLASSES.some((error) => value instanceof error)

/**
 * Recognizes Interlock's errors: `err instanceof InterlockError`, or `InterlockError.is(err)`. Each
 * is an `Error` with a `_tag` (`err._tag === "Denied"`), and the call errors carry a `receipt`.
 */
export const InterlockError: {
  readonly is: (value: unknown) => value is InterlockError
  readonly [Symbol.hasInstance]: (value: unknown) => value is InterlockError
} = { is: isInterlockError, [Symbol.hasInstance]: isInterlockError }
