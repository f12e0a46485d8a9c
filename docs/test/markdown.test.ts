/** The README suite's reader of Markdown: fences, the block convention, links and anchors. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { anchors, classify, fences, links } from "./Markdown.ts"

/** Text that cannot open or close a fence: no line break, backtick or tilde. */
const plain = (text: string) => text.replace(/[\n\r`~]/g, "")

describe("fences", () => {
  it("finds ``` and ~~~ blocks, indented ones too, with their opening line, info and text", () => {
    const text = [
      "# T",
      "",
      "```ts run",
      "const a = 1",
      "```",
      "- item",
      "  ~~~sh no-run needs a TTY",
      "  echo hi",
      "  ~~~",
      "````md",
      "```",
      "````"
    ].join("\n")
    assert.deepStrictEqual(fences(text), [
      { line: 3, info: "ts run", body: "const a = 1\n" },
      { line: 7, info: "sh no-run needs a TTY", body: "echo hi\n" },
      { line: 10, info: "md", body: "```\n" }
    ])
  })

  it.effect.prop("any block text comes back as written, at the line of its fence", [
    Schema.Array(Schema.String),
    Schema.Array(Schema.String)
  ], ([before, body]) =>
    Effect.sync(() => {
      const prose = before.map(plain)
      const lines = body.map(plain)
      const found = fences([...prose, "```ts run", ...lines, "```", "after"].join("\n"))
      assert.deepStrictEqual(found, [{
        line: prose.length + 1,
        info: "ts run",
        body: lines.length === 0 ? "" : lines.join("\n") + "\n"
      }])
    }))

  it("an inline code span of three backticks opens no block", () => {
    assert.deepStrictEqual(fences("use ```ts``` here\n"), [])
  })
})

describe("classify", () => {
  it("reads run with exit, cwd and env", () => {
    assert.deepStrictEqual(classify("ts run exit=1 cwd=../x env=A=b=c"), {
      _tag: "Run",
      runner: "ts",
      exit: 1,
      cwd: "../x",
      env: { A: "b=c" }
    })
    assert.deepStrictEqual(classify("bash run"), { _tag: "Run", runner: "bash", exit: 0, cwd: undefined, env: {} })
  })

  it("reads no-run with its reason, file=, output and plain blocks", () => {
    assert.deepStrictEqual(classify("sh no-run needs Claude Desktop"), {
      _tag: "NoRun",
      reason: "needs Claude Desktop"
    })
    assert.deepStrictEqual(classify("json file=conf/a.json"), { _tag: "File", path: "conf/a.json" })
    assert.deepStrictEqual(classify("text output"), { _tag: "Output" })
    assert.deepStrictEqual(classify("json"), { _tag: "Plain" })
  })

  it.effect.prop(
    "a code block that says neither run, no-run nor file= is an error, whatever else it says",
    [
      Schema.Literals(["ts", "typescript", "js", "javascript", "mjs", "sh", "bash", "shell", "console"]),
      Schema.Array(Schema.String)
    ],
    ([lang, words]) =>
      Effect.sync(() => {
        const rest = words.map((word) => word.replace(/\s/g, "")).filter((word) =>
          word !== "" && !/^(run|no-run|output|file=.*)$/.test(word)
        )
        assert.strictEqual(classify([lang, ...rest].join(" "))._tag, "BlockError")
      })
  )

  it("rejects what breaks the convention, saying what", () => {
    for (
      const [info, words] of [
        ["", "no language"],
        ["ts", "neither"],
        ["console", "neither"],
        ["sh no-run", "without a reason"],
        ["json run", "only"],
        ["ts run exit=x", "exit=x"],
        ["ts run fast", "fast"],
        ["json file=../up.json", "without .."],
        ["json pretty", "unknown words"]
      ] as const
    ) {
      const result = classify(info)
      assert.strictEqual(result._tag, "BlockError", info)
      assert.include(result._tag === "BlockError" ? result.message : "", words, info)
    }
  })
})

describe("links and anchors", () => {
  it("finds inline links, images and definitions outside code, with their lines", () => {
    const text = [
      "[a](docs/A.md) and ![i](img.svg \"t\")",
      "`[not](a link)`",
      "```",
      "[no](in/fence.md)",
      "```",
      "[ref]: <other file.md>",
      "[web](https://x.y)"
    ].join("\n")
    assert.deepStrictEqual(links(text), [
      { line: 1, target: "docs/A.md" },
      { line: 1, target: "img.svg" },
      { line: 6, target: "other file.md" },
      { line: 7, target: "https://x.y" }
    ])
  })

  it("names headings as GitHub does, repeats numbered", () => {
    const text = ["# Run it", "## Beyond tools: `hub.features`", "## Run it", "```", "# not a heading", "```"].join(
      "\n"
    )
    assert.deepStrictEqual([...anchors(text)], ["run-it", "beyond-tools-hubfeatures", "run-it-1"])
  })
})
