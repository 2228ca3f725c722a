import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// storeEvent is the door reconciliation shares with deliveries. What reconciliation stores came from
// the gateway's own API, so nothing it loads may be about checking a delivery's signature.

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** Every project file `entries` import, directly or not (type-only imports count: they are a dependency too). */
function importClosure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { fileName: spec } of ts.preProcessFile(readFileSync(path.join(ROOT, file), "utf8"), true, true).importedFiles) {
      const base = spec.startsWith("@/") ? spec.slice(2) : spec.startsWith(".") ? path.posix.join(path.posix.dirname(file), spec) : null;
      if (base === null) continue;
      const resolved = [base, `${base}.ts`, `${base}.tsx`].find(
        (candidate) => existsSync(path.join(ROOT, candidate)) && candidate.endsWith("ts"),
      );
      if (resolved) pending.push(resolved);
    }
  }
  return seen;
}

const VERIFICATION = [
  "lib/inbox/ingest/ingest-event.ts",
  "lib/inbox/ingest/signature-failures.ts",
  "lib/inbox/ingest/signature-nonces.ts",
  "lib/http/jwks-cache.ts",
];

describe("storing an event", () => {
  it("loads nothing of signature checking, and neither does reconciliation", () => {
    const reconcile = readdirSync(path.join(ROOT, "lib/reconcile"))
      .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
      .map((name) => `lib/reconcile/${name}`);
    expect(reconcile.length).toBeGreaterThan(0);
    const closure = importClosure(["lib/inbox/ingest/store-event.ts", ...reconcile]);
    expect(closure.has("lib/inbox/ingest/store-event.ts")).toBe(true);
    expect(closure.has("lib/queue/boss.ts")).toBe(true);
    expect(VERIFICATION.filter((file) => closure.has(file))).toEqual([]);
  });

  it("the check sees the files delivery verification loads", () => {
    const closure = importClosure(["lib/inbox/ingest/ingest-event.ts"]);
    expect(VERIFICATION.filter((file) => !closure.has(file))).toEqual([]);
  });
});
