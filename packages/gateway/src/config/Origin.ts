/**
 * Web origins as the config names them (`listen.allowedOrigins`, `listen.publicUrl`) and the HTTP guard compares them.
 */

/**
 * An origin (`scheme://host[:port]`, http or https, nothing after it) in its canonical form (`URL.origin`); undefined
 * when it is not one.
 */
export const parseOrigin = (text: string): string | undefined => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  const bare = url.username === "" && url.password === "" && url.pathname === "/" && url.search === "" &&
    url.hash === ""
  const protocolOk = url.protocol === "http:" || url.protocol === "https:"
  return bare && protocolOk ? url.origin : undefined
}
