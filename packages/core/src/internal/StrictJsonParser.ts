/**
 * A JSON parser that builds every key from its own decoded characters. Iterative (an explicit
 * stack), so nesting depth cannot overflow the call stack, and linear in the text's length.
 * Fails as JSON.parse does, with a SyntaxError naming the position.
 */

interface Frame {
  readonly container: Array<unknown> | Record<string, unknown>
  key: string
}

/** JSON's white space (RFC 8259 section 2). */
const WHITE_SPACE: ReadonlySet<string> = new Set([" ", "\t", "\n", "\r"])

/** JSON's number grammar (RFC 8259 section 6), sticky: it matches only at `lastIndex`. */
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y
const HEX4 = /^[0-9a-fA-F]{4}$/

/** What the one-character escapes after a backslash stand for (`\u` is read apart). */
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  "\"": "\"",
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t"
}

/** Sets a property as JSON.parse does: an own data property, even for `__proto__`. */
const define = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  } else target[key] = value
}

/** Parses JSON text; throws a SyntaxError for text that is not JSON. */
export const parseStrict = (text: string): unknown => {
  const length = text.length
  let i = 0

  const fail = (what: string): never => {
    throw new SyntaxError(`${what} in JSON at position ${i}`)
  }
  const skipSpace = () => {
    for (; i < length; i++) {
      if (!WHITE_SPACE.has(text.charAt(i))) return
    }
  }
  const readString = (): string => {
    i++ // the opening quote
    let out = ""
    let start = i
    for (;;) {
      if (i >= length) return fail("Unterminated string")
      const c = text.charAt(i)
      if (c === "\"") {
        out += text.slice(start, i)
        i++
        return out
      }
      if (c < " ") return fail("Bad control character in string literal")
      if (c !== "\\") {
        i++
        continue
      }
      out += text.slice(start, i)
      const escaped = text.charAt(i + 1)
      const simple = Object.hasOwn(SIMPLE_ESCAPES, escaped) ? SIMPLE_ESCAPES[escaped] : undefined
      if (simple !== undefined) {
        out += simple
        i += 2
      } else if (escaped === "u") {
        const hex = text.slice(i + 2, i + 6)
        if (!HEX4.test(hex)) return fail("Bad Unicode escape")
        out += String.fromCharCode(Number.parseInt(hex, 16))
        i += 6
      } else {
        return fail("Bad escaped character")
      }
      start = i
    }
  }
  const readKey = (): string => {
    skipSpace()
    if (text.charAt(i) !== "\"") return fail("Expected property name")
    const key = readString()
    skipSpace()
    if (text.charAt(i) !== ":") return fail("Expected ':' after property name")
    i++
    return key
  }
  const readLiteral = (word: string, value: unknown): unknown => {
    if (!text.startsWith(word, i)) return fail("Unexpected token")
    i += word.length
    return value
  }
  const readNumber = (): number => {
    NUMBER.lastIndex = i
    const match = NUMBER.exec(text)
    if (match === null) return fail("Unexpected token")
    i = NUMBER.lastIndex
    return Number(match[0])
  }

  const stack: Array<Frame> = []
  for (;;) {
    skipSpace()
    const c = text.charAt(i)
    let value: unknown
    if (c === "{" || c === "[") {
      i++
      skipSpace()
      const isObject = c === "{"
      const container = isObject ? {} : []
      if (text.charAt(i) !== (isObject ? "}" : "]")) {
        stack.push({ container, key: isObject ? readKey() : "" })
        continue
      }
      i++
      value = container
    } else if (c === "\"") value = readString()
    else if (c === "t") value = readLiteral("true", true)
    else if (c === "f") value = readLiteral("false", false)
    else if (c === "n") value = readLiteral("null", null)
    else if (c === "-" || (c >= "0" && c <= "9")) value = readNumber()
    else return fail(i >= length ? "Unexpected end of JSON input" : "Unexpected token")

    // Put the value in its container; close every container that ends here.
    for (;;) {
      const top = stack.at(-1)
      if (top === undefined) {
        skipSpace()
        if (i < length) return fail("Unexpected non-whitespace character after JSON")
        return value
      }
      const isArray = Array.isArray(top.container)
      if (isArray) (top.container as Array<unknown>).push(value)
      else define(top.container as Record<string, unknown>, top.key, value)
      skipSpace()
      const next = text.charAt(i)
      if (next === ",") {
        i++
        if (!isArray) top.key = readKey()
        break
      }
      if (next !== (isArray ? "]" : "}")) return fail(isArray ? "Expected ',' or ']'" : "Expected ',' or '}'")
      i++
      stack.pop()
      value = top.container
    }
  }
}
