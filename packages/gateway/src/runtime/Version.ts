/** The gateway's version, in a module of its own so that the CLI can name it without loading the gateway. */

/** The gateway's version, as servers and hosts see it. */
export const VERSION = "0.1.0"
