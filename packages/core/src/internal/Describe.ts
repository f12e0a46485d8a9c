/** Value-free descriptions for error messages: they say what kind of thing was given, never what it held. */

/** "null", "an array", "an object", "a string", ...: the kind of a value, never its content. */
export const describe = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : typeof value === "object"
    ? "an object"
    : `a ${typeof value}`
