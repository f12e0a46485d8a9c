/** The answer to a prompt get: an optional description and the prompt's messages. */
import { Schema } from "effect"

/** What `prompts/get` returns. Messages stay as the server sent them (role plus content). */
export class PromptResult extends Schema.Class<PromptResult>("@interlock/core/PromptResult")({
  description: Schema.optional(Schema.String),
  messages: Schema.Array(Schema.JsonObject),
  meta: Schema.optional(Schema.JsonObject)
}) {}
