/** Sample credentials for the built-in detectors, shared by the redaction tests. */

/** One sample credential per built-in detector. */
export const SAMPLES: Record<string, string> = {
  "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
  "aws-secret-key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "bearer-token": "Authorization: Bearer abcdef0123456789.token",
  "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
  "github-token": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  "openai-key": "sk-proj-abcdefghijklmnopqrstuvwxyz",
  "slack-token": "xoxb-1234567890-abcdefghij",
  jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
}

/** The part of a detector's sample that redaction must remove. */
export const secretPart = (name: string): string =>
  name === "aws-secret-key"
    ? "wJalrXUtnFEMI"
    : name === "bearer-token"
    ? "abcdef0123456789"
    : name === "private-key"
    ? "MIIEpAIBAAKCAQEA"
    : SAMPLES[name]
