/** The answer to a resource read: MCP resource contents (text or blob entries). */
import { Schema } from "effect"

/** What `resources/read` returns. Each entry has `uri` and `text` or `blob`, plus optional mimeType and `_meta`. */
export class ResourceContents extends Schema.Class<ResourceContents>("@interlock/core/ResourceContents")({
  contents: Schema.Array(Schema.JsonObject),
  meta: Schema.optional(Schema.JsonObject)
}) {}
