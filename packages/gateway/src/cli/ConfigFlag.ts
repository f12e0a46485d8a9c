/**
 * The `--config`/`-c` flag the commands share, apart from Shared.ts so that claude-hook's direct path loads no
 * effect/cli flags.
 */
import * as Flag from "effect/cli/Flag"

/** The optional `--config`/`-c` flag, described for its command. */
export const configFlag = (description: string) =>
  Flag.String("config").pipe(Flag.withAlias("c"), Flag.withDescription(description), Flag.optional)
