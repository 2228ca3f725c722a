import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DocBlockError, docBlocks, extractBlocks, isRunnable, isShell } from "./harness/doc-blocks";

// The extractor of the code blocks a reader pastes, and the rule it serves over the real docs:
// every shell or JavaScript block in README.md and docs/*.md is run by a test, or says why not.

const doc = (...lines: string[]) => lines.join("\n");

describe("extractBlocks", () => {
  it("finds each fenced block with its line, language, code and marker", () => {
    const blocks = extractBlocks(
      doc(
        "# Title",
        "",
        "```sh",
        "echo one",
        "```",
        "",
        "<!-- not run: it deletes the database -->",
        "```bash",
        "dropdb inbox",
        "```",
        "<!-- keeps running: ready when http://localhost:3000/api/health answers -->",
        "",
        "```sh",
        "npm run dev",
        "```",
        '<!-- keeps running: ready when "until Ctrl-C" is printed -->',
        "```sh",
        "npm run simulate -- run --hold",
        "```",
        "<!-- run by e2e/x.e2e.test.ts -->",
        "```js",
        "console.log(`a`);",
        "",
        "console.log(`b`);",
        "```",
        "<!-- schema: PaymentChange -->",
        "```json",
        '{"id": "chg_1"}',
        "```",
      ),
      "docs/x.md",
    );
    expect(blocks.map(({ line, language, how }) => ({ line, language, how }))).toEqual([
      { line: 3, language: "sh", how: { kind: "run" } },
      { line: 8, language: "bash", how: { kind: "not run", reason: "it deletes the database" } },
      { line: 13, language: "sh", how: { kind: "keeps running", ready: { url: "http://localhost:3000/api/health" } } },
      { line: 17, language: "sh", how: { kind: "keeps running", ready: { printed: "until Ctrl-C" } } },
      { line: 21, language: "js", how: { kind: "run by", file: "e2e/x.e2e.test.ts" } },
      { line: 27, language: "json", how: { kind: "not run", reason: "a json block is shown, not pasted" } },
    ]);
    expect(blocks[0]!.code).toBe("echo one\n");
    expect(blocks[4]!.code).toBe("console.log(`a`);\n\nconsole.log(`b`);\n");
    expect(blocks[5]!.tag).toBe("schema: PaymentChange");
    expect(blocks.map(isRunnable)).toEqual([true, true, true, true, true, false]);
  });

  it("takes a comment only from the line right before the fence, and reads indented blocks (in a list)", () => {
    const [block] = extractBlocks(
      doc("<!-- not run: far away -->", "Some prose.", "", "- a step:", "", "  ```sh", "  ls -l", "    x", "  ```"),
      "a.md",
    );
    expect(block!.how).toEqual({ kind: "run" });
    expect(block!.code).toBe("ls -l\n  x\n");
  });

  it("a longer fence holds a shorter one", () => {
    const blocks = extractBlocks(doc("````md", "```sh", "inner", "```", "````", "```sh", "outer", "```"), "a.md");
    expect(blocks.map(({ language, code }) => [language, code])).toEqual([
      ["md", "```sh\ninner\n```\n"],
      ["sh", "outer\n"],
    ]);
  });

  it("refuses a block without a language, one never closed, a 'not run' without its reason, an unready 'keeps running'", () => {
    expect(() => extractBlocks(doc("```", "ls", "```"), "a.md")).toThrow(DocBlockError);
    expect(() => extractBlocks(doc("```sh", "ls"), "a.md")).toThrow(/never closed/);
    expect(() => extractBlocks(doc("<!-- not run -->", "```sh", "ls", "```"), "a.md")).toThrow(/needs a reason/);
    expect(() => extractBlocks(doc("<!-- keeps running: a while -->", "```sh", "ls", "```"), "a.md")).toThrow(/ready on/);
    expect(() => extractBlocks(doc("<!-- run by -->", "```sh", "ls", "```"), "a.md")).toThrow(/test file/);
  });
});

describe("the docs' own blocks", () => {
  const blocks = docBlocks();

  it("are found in README.md and the docs (shell and JavaScript among them)", () => {
    const runnable = blocks.filter(isRunnable);
    expect(runnable.map(({ file }) => file)).toEqual(expect.arrayContaining(["README.md", "docs/host-integration.md"]));
    expect(runnable.some(({ language }) => language === "js")).toBe(true);
  });

  it("each is run by the recipes test, kept running by it, or run by a test that exists and reads that doc, or says why not", () => {
    for (const block of blocks.filter(isRunnable)) {
      const where = `${block.file}:${block.line}`;
      if (block.how.kind === "not run") expect(block.how.reason.length, where).toBeGreaterThan(10);
      // The recipes test runs shell; a script is saved and started by a test of its own.
      if (block.how.kind === "run" || block.how.kind === "keeps running")
        expect(isShell(block), `${where}: a ${block.language} block`).toBe(true);
      if (block.how.kind === "run by") {
        expect(existsSync(block.how.file), `${where}: ${block.how.file}`).toBe(true);
        expect(readFileSync(block.how.file, "utf8"), `${where}: ${block.how.file} reads ${block.file}`).toContain(block.file);
      }
    }
  });
});
