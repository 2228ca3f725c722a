import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { configVariables } from "./env";

// docs/configuration.md is the reference: each variable the configuration reads is listed there
// exactly once (a gateway's variables once, as WEBHOOK_SECRET_<PROVIDER> and so on).

/** Occurrences of a variable name as a whole word (INGEST_PORT is not PORT). */
function occurrences(text: string, name: string): number {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.match(new RegExp(`(?<![A-Za-z0-9_<>])${escaped}(?![A-Za-z0-9_<>])`, "g"))?.length ?? 0;
}

describe("docs/configuration.md", () => {
  it("lists every variable the configuration reads exactly once", async () => {
    const doc = await readFile(new URL("../../docs/configuration.md", import.meta.url), "utf8");
    const names = [...new Set(configVariables().map(({ documentedAs }) => documentedAs))];
    expect(names.length).toBeGreaterThan(60);
    const counts = Object.fromEntries(names.map((name) => [name, occurrences(doc, name)]));
    expect(Object.entries(counts).filter(([, count]) => count !== 1)).toEqual([]);
  });
});
