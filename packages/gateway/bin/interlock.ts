#!/usr/bin/env node
// The interlock CLI. Implemented in the gateway issue.
console.error("interlock: not implemented yet")
process.exit(1)
