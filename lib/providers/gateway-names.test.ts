import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DRIVERS } from "./registry";

// The rule: a gateway's name appears only in its driver, the registry and the simulator. Anything
// else the core needs from a gateway (its settings, its verification needs, its defaults, its label)
// it reads from the driver's declaration through the registry.
//
// Scanned: every source file under lib/, app/ and worker/, and proxy.ts, code and comments alike.
// Not scanned: lib/providers/ (the drivers and the registry), tests (*.test.ts, *.test.tsx) and the
// test harness (lib/testing/), fixtures, and docs; e2e/ holds the simulator.
// A name is each driver's `name` and `label`, in any case, as a word or a part of an identifier
// (stripe, STRIPE_API_URL, ingestStripeStep, stripe-signature, "Mercado Pago", Pagar.me). A name that
// is also an ordinary word, and names the spec our own pushes follow ("Standard Webhooks"), counts
// only in the forms that point at the gateway: the quoted id, a variable stem (WEBHOOK_SECRET_STANDARD),
// an identifier built on it (standardDriver) and a module path (providers/standard).
// Each finding names its file and line.

const ROOT = join(import.meta.dirname, "../..");
const SCANNED = ["lib", "app", "worker", "proxy.ts"];
const SOURCE = /\.(ts|tsx|js|mjs|cjs)$/;
const SKIPPED = [/^lib\/providers\//, /^lib\/testing\//, /\/fixtures\//, /\.test\.tsx?$/, /(^|\/)node_modules\//];

/** Names that are ordinary words too: only their code forms count (see above). */
const COMMON_WORDS = new Set(["standard"]);
/** A common word's one use that is not a gateway: pg-boss's queue policy of that name. */
const NOT_A_GATEWAY = [/\bpolicy: "standard"/g];

/** The line's words, identifiers split at camelCase, snake_case and kebab-case, lower-cased. */
function words(line: string): string[] {
  return line
    .split(/[^A-Za-z0-9]+/)
    .flatMap((token) => token.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/))
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

const containsRun = (haystack: string[], run: string[]) =>
  haystack.some((_, start) => run.every((word, offset) => haystack[start + offset] === word));

function commonWordPatterns(name: string): RegExp[] {
  const upper = name.toUpperCase();
  const capital = name[0]!.toUpperCase() + name.slice(1);
  return [
    new RegExp(`(["'\`])${name}\\1`),
    new RegExp(`\\b[A-Z0-9_]*_${upper}\\b|\\b${upper}_[A-Z0-9_]*`),
    new RegExp(`\\b${name}[A-Z]|[a-z0-9]${capital}\\b`),
    new RegExp(`/${name}["'.]`),
  ];
}

/** `lineWords`: words(line), split once for every matcher. */
type Matcher = { gateway: string; matches: (line: string, lineWords: string[]) => boolean };

function gatewayMatchers(drivers: readonly { name: string; label: string }[] = DRIVERS): Matcher[] {
  return drivers.map(({ name, label }) => {
    if (COMMON_WORDS.has(name)) {
      const patterns = commonWordPatterns(name);
      return {
        gateway: name,
        matches: (line) => {
          const cleaned = NOT_A_GATEWAY.reduce((text, pattern) => text.replace(pattern, ""), line);
          return patterns.some((pattern) => pattern.test(cleaned));
        },
      };
    }
    const spellings = [words(name), words(label)];
    return { gateway: name, matches: (_line, lineWords) => spellings.some((spelling) => containsRun(lineWords, spelling)) };
  });
}

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (path: string) => {
    const entries = readdirSync(join(ROOT, path), { withFileTypes: true });
    for (const entry of entries) {
      const child = `${path}/${entry.name}`;
      if (SKIPPED.some((pattern) => pattern.test(child))) continue;
      if (entry.isDirectory()) walk(child);
      else if (SOURCE.test(entry.name)) files.push(child);
    }
  };
  for (const path of SCANNED) {
    if (SOURCE.test(path)) files.push(path);
    else walk(path);
  }
  return files;
}

describe("gateway names", () => {
  it("appear in no source outside lib/providers, the tests and the simulator", () => {
    const matchers = gatewayMatchers();
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(200);
    const findings = files.flatMap((file) =>
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, index) => {
          const lineWords = words(line);
          return matchers
            .filter((matcher) => matcher.matches(line, lineWords))
            .map((matcher) => `${file}:${index + 1}: ${matcher.gateway}: ${line.trim()}`);
        }),
    );
    expect(findings).toEqual([]);
  });

  it("are found in every form the rule names, and only there", () => {
    const found = (line: string) =>
      gatewayMatchers()
        .filter((matcher) => matcher.matches(line, words(line)))
        .map((matcher) => matcher.gateway);
    expect(found('if (provider !== "pagarme") return {};')).toEqual(["pagarme"]);
    expect(found("const keys = config.PAGARME_JWKS_URL;")).toEqual(["pagarme"]);
    expect(found("// keys like the ones Pagar.me publishes")).toEqual(["pagarme"]);
    expect(found("await ingestStripeStep(app, payment);")).toEqual(["stripe"]);
    expect(found('headers["stripe-signature"]')).toEqual(["stripe"]);
    expect(found("// Mercado Pago signs a manifest")).toEqual(["mercadopago"]);
    expect(found("e.g. ZOOP_MARKETPLACE_ID")).toEqual(["zoop"]);
    expect(found("Asaas sends local times")).toEqual(["asaas"]);
    expect(found('provider: "standard",')).toEqual(["standard"]);
    expect(found('name === "WEBHOOK_SECRET_STANDARD"')).toEqual(["standard"]);
    expect(found("STANDARD_STATUS_MAP=settled=paid")).toEqual(["standard"]);
    expect(found('import { standardDriver } from "../providers/standard";')).toEqual(["standard"]);
    expect(found("return diagnoseStandard(input);")).toEqual(["standard"]);
    // Not gateways: the spec our pushes follow, its library, pg-boss's policy, and words that merely contain a name.
    expect(found("// signed as Standard Webhooks, a standard way to sign")).toEqual([]);
    expect(found('import { Webhook } from "standardwebhooks";')).toEqual([]);
    expect(found('queue: { policy: "standard", retryLimit: 3 },')).toEqual([]);
    expect(found("rows are striped; a zoopla link; the asaasi tribe")).toEqual([]);
  });
});
