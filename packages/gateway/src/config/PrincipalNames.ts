/**
 * The principal names the gateway gives to callers that no config names: the config may not use
 * them for a principal of its own, and the receipt, the audit and the console show them.
 */

/** The name the receipt and the audit give the holder of `listen.consoleToken`. */
export const CONSOLE_TOKEN_HOLDER = "console-token"

/** The name the receipt and the audit give the one user of a gateway with no token. */
export const LOCAL_USER = "local"
