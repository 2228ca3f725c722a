import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { waitFor } from "@/lib/testing/test-worker";
import { stopChild } from "./harness/app-server";
import { docBlocks, isRunnable, isShell, type DocBlock } from "./harness/doc-blocks";

// [DOCS] Every recipe in README.md and docs/*.md, run as a reader pastes it, in the order the doc
// gives them, from the repository's root: `npm run dev` from the quick start started on a data
// directory and a port of the test's own (the blocks' `localhost:3000` is pointed at that port, and
// PORT tells the simulator), the commands that follow run against it. A block that fails fails the
// test. What the markers mean is in e2e/harness/doc-blocks.ts; e2e/doc-blocks.test.ts checks that
// every block is run by some test or says why not.

const DEFAULT_PORT = 3000;
let dataDir: string;
let port: number;
const running: { block: DocBlock; child: ChildProcess; output: () => string }[] = [];

/** The environment of a reader's fresh shell in the repository: none of the test runner's own. */
function readerEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(VITEST|TEST_|NODE_ENV$|DATABASE_URL$|NEXTAUTH_URL$)/.test(name)) Reflect.deleteProperty(env, name);
  }
  return Object.assign(env, { DATA_DIR: dataDir, PORT: String(port) });
}

/** Files in the checkout that git doesn't track and doesn't ignore. */
const untracked = () =>
  execFileSync("git", ["ls-files", "--others", "--exclude-standard"], { encoding: "utf8" }).split("\n").filter(Boolean);

const pointed = (text: string) => text.replaceAll(`localhost:${DEFAULT_PORT}`, `localhost:${port}`);

function start(block: DocBlock): { child: ChildProcess; output: () => string } {
  if (!isShell(block))
    throw new Error(`${block.file}:${block.line}: only shell blocks are run here; mark it "run by" the test that runs it`);
  const child = spawn("bash", ["-c", pointed(block.code)], { env: readerEnvironment(), detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += String(chunk)));
  child.stderr!.on("data", (chunk) => (output += String(chunk)));
  return { child, output: () => output };
}

/** Runs a block to its end: exit 0, and each `{...}` its `# -> ...` comments promise is in its output. */
async function runToEnd(block: DocBlock) {
  const { child, output } = start(block);
  const code = await new Promise<number | null>((done) => child.once("exit", done));
  const where = `${block.file}:${block.line}`;
  expect(code, `${where} exited ${code}:\n${output()}`).toBe(0);
  const promised = [...block.code.matchAll(/^# -> (.*)$/gm)].flatMap(([, text]) => text!.match(/\{[^}]*\}/g) ?? []);
  for (const answer of promised) expect(output(), `${where} promised ${answer}`).toContain(answer);
}

/**
 * Starts a block that keeps running. One ready on a URL is a server the doc's later blocks talk to:
 * it stays up until the doc ends. One ready on a printed line is a tool the reader stops once it
 * said so: Ctrl-C then.
 */
async function keepRunning(block: DocBlock & { how: { kind: "keeps running" } }) {
  const started = start(block);
  const where = `${block.file}:${block.line}`;
  const ready = block.how.ready;
  await waitFor(
    async () => {
      if (started.child.exitCode !== null || started.child.signalCode !== null) {
        throw new Error(`${where} stopped before it was ready (${started.child.exitCode}):\n${started.output()}`);
      }
      if ("printed" in ready) return started.output().includes(ready.printed);
      return fetch(pointed(ready.url)).then(
        (response) => response.ok,
        () => false,
      );
    },
    600_000,
    `${where} to be ready`,
  );
  if ("printed" in ready) {
    process.kill(-started.child.pid!, "SIGINT");
    await new Promise((done) =>
      started.child.exitCode === null && started.child.signalCode === null ? started.child.once("exit", done) : done(null),
    );
  } else {
    running.push({ block, ...started });
  }
}

async function stopRunning() {
  for (const { child } of running.splice(0).reverse()) await stopChild(child);
}

afterAll(async () => {
  await stopRunning();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const byFile = new Map<string, DocBlock[]>();
for (const block of docBlocks().filter(isRunnable)) byFile.set(block.file, [...(byFile.get(block.file) ?? []), block]);

describe("[DOCS] every recipe runs as written", () => {
  for (const [file, blocks] of byFile) {
    const runHere = blocks.filter(({ how }) => how.kind === "run" || how.kind === "keeps running");
    it.skipIf(runHere.length === 0)(
      `${file}: ${runHere.length} block(s) run, ${blocks.length - runHere.length} run elsewhere or not run (each says why)`,
      async () => {
        dataDir = mkdtempSync(join(tmpdir(), "doc-recipes-"));
        // As root the embedded PostgreSQL runs as "postgres", which must reach its data directory.
        chmodSync(dataDir, 0o755);
        port = await freePort();
        const untrackedBefore = untracked();
        try {
          for (const block of runHere) {
            if (block.how.kind === "keeps running") await keepRunning({ ...block, how: block.how });
            else await runToEnd(block);
          }
        } catch (error) {
          // What the servers the failed block talked to said, last lines first to read.
          for (const { block, output } of running) console.log(`${block.file}:${block.line} printed:\n${output().slice(-4000)}`);
          throw error;
        } finally {
          await stopRunning();
        }
        // A recipe that leaves a file in the checkout would land in the reader's next commit.
        expect(untracked().filter((file) => !untrackedBefore.includes(file))).toEqual([]);
      },
      1_800_000,
    );
  }
});
