#!/bin/sh
# A Claude Code command hook (packages/claude/README.md runs it from this folder). It reads the
# hook's event, JSON on stdin; exit 2 denies the call with stderr as the reason, exit 0 with no
# output has no opinion. This one keeps Bash and the fs server's tools off the network.
if grep -Eq 'curl|wget'; then
  echo "no network from this project's tools" >&2
  exit 2
fi
exit 0
