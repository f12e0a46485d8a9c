/** Built-in secret detectors: regexes for common credentials, used by the `redact` config key. */
import type { DetectorName } from "./Config.ts"

/** Each detector's regex source and flags (global matching is added when compiled). */
export const DETECTORS: Record<DetectorName, { readonly source: string; readonly flags: string }> = {
  "aws-access-key": { source: String.raw`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`, flags: "" },
  "aws-secret-key": { source: String.raw`(?<=aws.{0,20}(?:secret|key).{0,20}?[=:]\s*["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])`, flags: "i" },
  "bearer-token": { source: String.raw`(?<=\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*`, flags: "i" },
  "private-key": {
    source: String.raw`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----`,
    flags: ""
  },
  "github-token": { source: String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`, flags: "" },
  "openai-key": { source: String.raw`\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}`, flags: "" },
  "slack-token": { source: String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`, flags: "" },
  jwt: { source: String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, flags: "" }
}

/** Every detector's name. */
export const DETECTOR_NAMES = Object.keys(DETECTORS) as ReadonlyArray<DetectorName>
