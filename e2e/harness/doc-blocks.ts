import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// The code blocks a reader of README.md and docs/*.md pastes (shell and JavaScript), and how the
// doc tests run each one, said by a marker on the line before the block:
//   (none)                         run as written, to its end, and must exit 0
//   <!-- not run: REASON -->       not run, for the reason given (it must give one)
//   <!-- keeps running: READY -->  a server or a tool that runs until stopped: started, waited for
//                                  until READY (a URL that answers 2xx, or "a line it prints"),
//                                  then stopped with Ctrl-C (SIGINT) and must exit 0
//   <!-- run by FILE -->           another test runs it (FILE must exist and name this doc)
// Blocks in other languages (json, ini, nginx, mermaid) are shown, not pasted: not run.

export const SHELL_LANGUAGES = ["sh", "bash", "shell", "console"] as const;
export const SCRIPT_LANGUAGES = ["js", "javascript", "mjs", "cjs", "ts", "typescript"] as const;
const RUNNABLE: readonly string[] = [...SHELL_LANGUAGES, ...SCRIPT_LANGUAGES];

export type HowRun =
  | { kind: "run" }
  | { kind: "not run"; reason: string }
  | { kind: "keeps running"; ready: { url: string } | { printed: string } }
  | { kind: "run by"; file: string };

export type DocBlock = {
  /** The markdown file, relative to the repository. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  code: string;
  how: HowRun;
  /** The marker's other tag on the same block (e.g. `schema: X` for a JSON example), when not a run marker. */
  tag: string | null;
};

/** A block the extractor can't place: no language, an unknown marker, a marker without its reason. */
export class DocBlockError extends Error {}

const MARKER = /^<!--\s*(not run|keeps running|run by|[\w-]+)\s*:?\s*(.*?)\s*-->$/;

function howFrom(marker: string | null, where: string): { how: HowRun; tag: string | null } {
  if (marker === null) return { how: { kind: "run" }, tag: null };
  const match = MARKER.exec(marker)!;
  const [, name, rest] = match as unknown as [string, string, string];
  if (name === "not run") {
    if (!rest) throw new DocBlockError(`${where}: "not run" needs a reason`);
    return { how: { kind: "not run", reason: rest }, tag: null };
  }
  if (name === "keeps running") {
    const printed = /^"(.+)"$/.exec(rest) ?? /ready when "(.+)" is printed/.exec(rest);
    if (printed) return { how: { kind: "keeps running", ready: { printed: printed[1]! } }, tag: null };
    const url = /(https?:\/\/\S+)/.exec(rest);
    if (url) return { how: { kind: "keeps running", ready: { url: url[1]! } }, tag: null };
    throw new DocBlockError(`${where}: "keeps running" needs what it is ready on: a URL, or a "quoted line" it prints`);
  }
  if (name === "run by") {
    const file = rest.split(/\s/)[0];
    if (!file) throw new DocBlockError(`${where}: "run by" needs the test file`);
    return { how: { kind: "run by", file }, tag: null };
  }
  return { how: { kind: "run" }, tag: `${name}${rest ? `: ${rest}` : ""}` };
}

/**
 * Every fenced block of `markdown` with its language and how it is run. A runnable block's marker
 * is the non-blank line right before its fence, if that line is an HTML comment.
 */
export function extractBlocks(markdown: string, file: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)(.*)$/.exec(lines[index]!);
    if (!fence) continue;
    const [, indent, ticks, language] = fence as unknown as [string, string, string, string];
    const where = `${file}:${index + 1}`;
    const end = lines.findIndex((line, at) => at > index && line.trim().startsWith(ticks) && /^(`+|~+)$/.test(line.trim()));
    if (end === -1) throw new DocBlockError(`${where}: the block is never closed`);
    const code = lines
      .slice(index + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join("\n");
    let before = index - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    const previous = before >= 0 ? lines[before]!.trim() : "";
    const marker = MARKER.test(previous) ? previous : null;
    if (!language) throw new DocBlockError(`${where}: say the block's language (sh, js, json, ...)`);
    const { how, tag } = howFrom(marker, where);
    blocks.push({
      file,
      line: index + 1,
      language: language.toLowerCase(),
      code: `${code}\n`,
      how: RUNNABLE.includes(language.toLowerCase()) ? how : { kind: "not run", reason: `a ${language} block is shown, not pasted` },
      tag,
    });
    index = end;
  }
  return blocks;
}

/** The documents whose blocks are checked: README.md and docs/*.md. */
export function documentationFiles(root = process.cwd()): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs];
}

export function docBlocks(root = process.cwd()): DocBlock[] {
  return documentationFiles(root).flatMap((file) => extractBlocks(readFileSync(join(root, file), "utf8"), file));
}

export const isRunnable = (block: DocBlock) => RUNNABLE.includes(block.language);
export const isShell = (block: DocBlock) => (SHELL_LANGUAGES as readonly string[]).includes(block.language);

/** The blocks of `doc` another test says it runs (`<!-- run by TEST -->`), in order. */
export function blocksRunBy(test: string, doc: string, root = process.cwd()): DocBlock[] {
  return extractBlocks(readFileSync(join(root, doc), "utf8"), doc).filter(({ how }) => how.kind === "run by" && how.file === test);
}
