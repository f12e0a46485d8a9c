/** Auth for the conformance auth/* scenarios: placeholder until the OAuth flow is wired. */
import type { HttpOptions } from "../src/index.ts"

/** Extra HTTP options for auth scenarios. */
export const conformanceAuth = (_url: string): Partial<HttpOptions> => ({})
