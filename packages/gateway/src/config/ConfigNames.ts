/** The config file names, in a module with no imports so that the bin can read them before it loads anything. */

/** The config file to use when none is given: the first of these names in the working directory that exists. */
export const CONFIG_NAMES = [
  "interlock.config.ts",
  "interlock.config.mts",
  "interlock.config.js",
  "interlock.config.json",
  "interlock.config.jsonc"
] as const
