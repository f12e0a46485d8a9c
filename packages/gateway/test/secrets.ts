/** The marked secrets that the secret-server fixture puts on every channel, and what a leak search looks for. */

/** Matched by the configured pattern {@link SECRET_PATTERN}. */
export const SECRET = "SECRET-7f3a9c2e4b1d"

/** The user pattern that matches the marked secrets. */
export const SECRET_PATTERN = "SECRET-[0-9a-f]{12}"

/** Detector-shaped (github-token), caught only by the built-in detectors. */
export const TOKEN = "ghp_Zq8Xw2Lk5Rt9Yp3Nv7Bm1Hc6Jd4Fs0GaEiUo"

/** A marked secret split across two text blocks: "SECRET-0a1b" + "2c3d4e5f". */
export const SPLIT = ["the key is SECRET-0a1b", "2c3d4e5f, keep it safe"] as const

/** A 1x1 PNG, base64: the image data that must pass unchanged (exempt by its position). */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

/** What must occur nowhere: the secrets' prefixes and the split secret's tail. */
export const NEEDLES = ["SECRET-", "ghp_", "2c3d4e5f"] as const

/** The needles found in a text (none, when nothing leaked). */
export const leaksIn = (text: string): ReadonlyArray<string> => NEEDLES.filter((needle) => text.includes(needle))
