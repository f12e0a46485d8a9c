/**
 * Built-in secret detectors: linear-time (RE2) regexes for common credentials, used by the
 * `redact` config key. None uses lookaround: where context must precede the secret (a bearer
 * prefix, an AWS key name), the context is matched too and only the `group` is masked.
 */
import type { DetectorName } from "../config/Config.ts"

/** A detector: an RE2 regex, its flags ("i" for case-insensitive) and the capture group to mask (0: all of it). */
export interface Detector {
  readonly source: string
  readonly flags: string
  readonly group: number
}

/** Each detector's regex (RE2 syntax: linear time on any input). */
export const DETECTORS: Record<DetectorName, Detector> = {
  "aws-access-key": {
    source: String.raw`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`,
    flags: "",
    group: 0
  },
  "aws-secret-key": {
    source: String.raw`aws.{0,20}(?:secret|key).{0,20}?[=:]\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+]|$)`,
    flags: "i",
    group: 1
  },
  "bearer-token": { source: String.raw`\bbearer\s+([A-Za-z0-9\-._~+/]{8,}=*)`, flags: "i", group: 1 },
  "private-key": {
    source: String.raw`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----`,
    flags: "",
    group: 0
  },
  "github-token": {
    source: String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`,
    flags: "",
    group: 0
  },
  "openai-key": { source: String.raw`\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}`, flags: "", group: 0 },
  "slack-token": { source: String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`, flags: "", group: 0 },
  jwt: { source: String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, flags: "", group: 0 }
}

/** Every detector's name. */
export const DETECTOR_NAMES = Object.keys(DETECTORS) as ReadonlyArray<DetectorName>
