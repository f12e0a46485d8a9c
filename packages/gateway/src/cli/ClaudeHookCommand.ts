/**
 * `interlock claude-hook --config F`: Claude Code runs this as a command hook. It reads one hook
 * event on stdin and answers in Claude Code's format through @interlock/claude's bridge, with the
 * gateway's config (hooks and policy) and audit store. A config that does not load answers closed.
 * The work is in ClaudeHookAnswer.ts, or ClaudeHookForward.ts with --gateway; this module holds the flags.
 */
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { answerHook } from "./ClaudeHookAnswer.ts"
import { main as forwardHook, TOKEN_ENV } from "./ClaudeHookForward.ts"

export { auditSinkLayer } from "./ClaudeHookAnswer.ts"

/** The claude-hook command. */
export const claudeHookCommand = Command.make(
  "claude-hook",
  {
    config: Flag.String("config").pipe(Flag.withAlias("c"), Flag.withDescription("The gateway config whose hooks and policy apply"), Flag.optional),
    gateway: Flag.String("gateway").pipe(
      Flag.withDescription(`Forward the event to the gateway running at this URL (its token in ${TOKEN_ENV}); deny (exit 2) when it does not answer`),
      Flag.optional
    )
  },
  ({ config, gateway }) => Option.isSome(gateway) ? Effect.promise(() => forwardHook(["--gateway", gateway.value])) : answerHook(config)
).pipe(Command.withDescription("Answer one Claude Code hook event (stdin) with the gateway's hooks and policy"))
