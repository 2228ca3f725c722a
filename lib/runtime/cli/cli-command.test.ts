import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { findDriver, PROVIDER_NAMES } from "../../providers/registry";
import type { CliRuntime } from "../cli-runtime";
import { command, flag, option, runCli, usage } from "./cli-command";
import { CLI_COMMANDS } from "./cli-commands";

// The command table without a database: the help made from it, and the options each command
// refuses before anything is opened. The commands' work is worker/cli.db.test.ts's.

let errors: string[];
beforeEach(() => {
  errors = [];
  vi.spyOn(console, "error").mockImplementation((line: string) => void errors.push(line));
});
afterEach(() => vi.restoreAllMocks());

function fakeRuntime() {
  const runtime = { close: vi.fn(async () => undefined) };
  return { runtime, open: vi.fn(() => runtime as unknown as CliRuntime) };
}

describe("the help", () => {
  const help = usage(CLI_COMMANDS);

  it("lists every command with its summary, then its options", () => {
    for (const { name, summary } of CLI_COMMANDS) expect(help).toContain(`\n  ${name.padEnd(24)}${summary}\n`);
    expect(help).toContain(
      "\n  replay                  put stored events back to pending and dispatch them\n      --provider P          only this provider\n",
    );
    expect(help).toContain("\n      --since T --until T   received in [T, T) (ISO-8601)\n");
    expect(help).toContain("\n      --provider P --from D --to D   a provider's events received in [D, D] (dates, UTC, inclusive)\n");
    expect(help).toContain("\n      --dry-run             print what would be replayed, change nothing\n");
    expect(help).toMatch(/\n {2}partitions:create .*\n {6}--month YYYY-MM\n/);
  });

  it("names reconcile's gateways from the registry: those with a list API, then those without", () => {
    const listing = PROVIDER_NAMES.filter((name) => findDriver(name)?.lister);
    const stuckOnly = PROVIDER_NAMES.filter((name) => !findDriver(name)?.lister);
    expect(listing.length).toBeGreaterThan(0);
    expect(help).toContain(`--provider P          the gateway (${listing.join(", ")}; ${stuckOnly.join(", ")}: stuck payments only)`);
  });

  it("is printed for an unknown or missing command, exit 2, opening nothing", async () => {
    for (const argv of [["no-such-command"], []]) {
      const { open } = fakeRuntime();
      errors = [];
      expect(await runCli(CLI_COMMANDS, argv, open)).toBe(2);
      expect(errors).toEqual([help]);
      expect(open).not.toHaveBeenCalled();
    }
  });
});

describe("the options", () => {
  const gateway = PROVIDER_NAMES[0]!;
  it.each([
    [["sweep", "--stale-minutes=-1"], "--stale-minutes must be a number >= 0"],
    [["sweep", "--stale-minutes", "soon"], "--stale-minutes must be a number >= 0"],
    [["sweep", "--all"], "Unknown option '--all'"],
    [["reconcile"], `reconcile needs --provider P (${PROVIDER_NAMES.join(", ")})`],
    [["reconcile", "--provider", "nobody"], `reconcile needs --provider P (${PROVIDER_NAMES.join(", ")})`],
    [["reconcile", "--provider", gateway, "--since", "yesterday"], "--since must be an ISO-8601 time"],
    [["reconcile", "--provider", gateway, "--until", "2026-01-01T00:00:00Z"], "--until needs --since"],
    [["restore", "--id", "1,x"], "--id must be a positive whole number"],
    [["restore", "--provider", gateway, "--from", "2026-01-01"], "restore needs --id N, or --provider P --from YYYY-MM-DD --to YYYY-MM-DD"],
    [["partitions:create", "--month", "2026-13"], "partitions:create needs --month YYYY-MM"],
    [["partitions:archive"], "partitions:archive needs --name (see npm run cli -- partitions)"],
    [["partitions:restore", "--name="], "partitions:restore needs --name (see npm run cli -- partitions)"],
    [["replay", "failed"], "Unexpected argument 'failed'. This command does not take positional arguments"],
  ])("%j is refused with a message naming the option, exit 1, before anything is opened", async (argv, message) => {
    const { open } = fakeRuntime();
    expect(await runCli(CLI_COMMANDS, argv, open)).toBe(1);
    expect(errors).toEqual([message]);
    expect(open).not.toHaveBeenCalled();
  });

  const seen: unknown[] = [];
  const probe = command({
    name: "probe",
    summary: "a command of the test's own",
    options: z
      .object({
        count: option(z.coerce.number().int(), { arg: "N" }),
        tag: option(z.array(z.string()).optional(), { arg: "T", help: "repeat" }),
        quiet: flag("say less"),
      })
      .refine(({ count }) => count < 10, "a count under 10, please"),
    run: async (_runtime, values) => {
      seen.push(values);
      if (values.count === 7) throw new Error("seven is refused by the work");
      if (values.count === 8) z.object({ statuses: z.array(z.enum(["failed", "ignored"])) }).parse({ statuses: ["lost"] });
      return values.count;
    },
  });
  const bare = command({ name: "bare", summary: "takes no options", run: async () => 0 });

  it("reach the command's run parsed (coerced, repeated, defaulted), and its exit code comes back", async () => {
    const { runtime, open } = fakeRuntime();
    expect(await runCli([probe], ["probe", "--count", "3", "--tag", "a", "--tag=b"], open)).toBe(3);
    expect(seen.at(-1)).toEqual({ count: 3, tag: ["a", "b"], quiet: false });
    expect(runtime.close).toHaveBeenCalledTimes(1);
    expect(await runCli([probe], ["probe", "--count=0", "--quiet"], open)).toBe(0);
    expect(seen.at(-1)).toEqual({ count: 0, quiet: true });
  });

  it("name the option in a schema's own message that doesn't, and print each refusal", async () => {
    const { open } = fakeRuntime();
    expect(await runCli([probe], ["probe", "--count", "1.5"], open)).toBe(1);
    expect(errors).toEqual([expect.stringMatching(/^--count: .*int/i)]);
    errors = [];
    expect(await runCli([probe], ["probe", "--count", "12"], open)).toBe(1);
    expect(errors).toEqual(["a count under 10, please"]);
    expect(open).not.toHaveBeenCalled();
  });

  it("a failing run exits 1 with its reason (a schema's by field), and the runtime is closed", async () => {
    const { runtime, open } = fakeRuntime();
    expect(await runCli([probe], ["probe", "--count", "7"], open)).toBe(1);
    expect(errors).toEqual(["seven is refused by the work"]);
    expect(await runCli([probe], ["probe", "--count", "8"], open)).toBe(1);
    expect(errors[1]).toMatch(/^statuses\.0: Invalid option/);
    expect(runtime.close).toHaveBeenCalledTimes(2);
  });

  it("a command without options ignores what follows it", async () => {
    const { open } = fakeRuntime();
    expect(await runCli([bare], ["bare", "--anything", "at", "all"], open)).toBe(0);
    expect(usage([bare, probe])).toBe(
      [
        "usage: npm run cli -- <command> [options]",
        "",
        "  bare                    takes no options",
        "  probe                   a command of the test's own",
        "      --count N --tag T     repeat",
        "      --quiet               say less",
      ].join("\n"),
    );
  });
});
