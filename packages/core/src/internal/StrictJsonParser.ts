/**
 * A JSON parser that builds every key from its own decoded characters. Iterative (an explicit
 * stack), so nesting depth cannot overflow the call stack, and linear in the text's length.
 * Fails as JSON.parse does, with a SyntaxError naming the position.
 */

interface Frame {
  readonly container: Array<unknown> | Record<string, unknown>
  key: string
}

const SPACE = 0x20
const TAB = 0x09
const LF = 0x0a
const CR = 0x0d
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d

/** JSON's number grammar (RFC 8259 section 6), sticky: it matches only at `lastIndex`. */
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y
const HEX4 = /^[0-9a-fA-F]{4}$/

const SIMPLE_ESCAPES: Readonly<Record<number, string>> = {
  [QUOTE]: "\"",
  [BACKSLASH]: "\\",
  0x2f: "/",
  0x62: "\b",
  0x66: "\f",
  0x6e: "\n",
  0x72: "\r",
  0x74: "\t"
}

/** Sets a property as JSON.parse does: an own data property, even for `__proto__`. */
const define = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
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
      const c = text.charCodeAt(i)
      if (c !== SPACE && c !== TAB && c !== LF && c !== CR) return
    }
  }
  const readString = (): string => {
    i++ // the opening quote
    let out = ""
    let start = i
    for (;;) {
      if (i >= length) return fail("Unterminated string")
      const c = text.charCodeAt(i)
      if (c === QUOTE) {
        out += text.slice(start, i)
        i++
        return out
      }
      if (c < SPACE) return fail("Bad control character in string literal")
      if (c !== BACKSLASH) {
        i++
        continue
      }
      out += text.slice(start, i)
      const escaped = text.charCodeAt(i + 1)
      const simple = SIMPLE_ESCAPES[escaped]
      if (simple !== undefined) {
        out += simple
        i += 2
      } else if (escaped === 0x75) {
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
    if (text.charCodeAt(i) !== QUOTE) return fail("Expected property name")
    const key = readString()
    skipSpace()
    if (text.charCodeAt(i) !== COLON) return fail("Expected ':' after property name")
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
    const c = text.charCodeAt(i)
    let value: unknown
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      i++
      skipSpace()
      const isObject = c === OPEN_OBJECT
      const container = isObject ? {} : []
      if (text.charCodeAt(i) !== (isObject ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        stack.push({ container, key: isObject ? readKey() : "" })
        continue
      }
      i++
      value = container
    } else if (c === QUOTE) value = readString()
    else if (c === 0x74) value = readLiteral("true", true)
    else if (c === 0x66) value = readLiteral("false", false)
    else if (c === 0x6e) value = readLiteral("null", null)
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) value = readNumber()
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
      const next = text.charCodeAt(i)
      if (next === COMMA) {
        i++
        if (!isArray) top.key = readKey()
        break
      }
      if (next !== (isArray ? CLOSE_ARRAY : CLOSE_OBJECT)) return fail(isArray ? "Expected ',' or ']'" : "Expected ',' or '}'")
      i++
      stack.pop()
      value = top.container
    }
  }
}
