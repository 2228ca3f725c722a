import { readFileSync } from "node:fs";

// Vendored excerpts of the gateways' own artifacts live in lib/providers/fixtures/<gateway>/, one
// object per file, wrapped as { "_source": { where it comes from }, "object": { the artifact } }.

type FixtureFile = { _source: Record<string, string>; object: unknown };

/** The artifact in lib/providers/fixtures/<path>, typed by the caller (e.g. with the gateway SDK's types). */
export function readFixture<T>(path: string): T {
  const file = JSON.parse(readFileSync(new URL(`../providers/fixtures/${path}`, import.meta.url), "utf8")) as FixtureFile;
  if (!file._source || typeof file._source !== "object") throw new Error(`${path}: a fixture names its _source`);
  return file.object as T;
}

/**
 * The artifact with some of its own fields changed (a captured charge, a lost dispute...). A key the
 * artifact doesn't have is refused, so a test can't slip in a field the gateway never documented.
 */
export function variant<T extends object>(fixture: T, overrides: Partial<T>): T {
  const unknown = Object.keys(overrides).filter((key) => !(key in fixture));
  if (unknown.length > 0) throw new Error(`not fields of the fixture: ${unknown.join(", ")}`);
  return { ...fixture, ...overrides };
}

/**
 * The rows of a gateway's lifecycle table in docs/gateways.md (its `### <heading>` section), each as
 * "<kind>: <documented name>", so a test can hold one case per documented row.
 */
export function documentedRows(heading: string): string[] {
  const docs = readFileSync(new URL("../../docs/gateways.md", import.meta.url), "utf8");
  const start = docs.indexOf(`\n### ${heading}\n`);
  if (start < 0) throw new Error(`docs/gateways.md has no "### ${heading}" section`);
  const rest = docs.slice(start + 1);
  const end = rest.slice(1).search(/\n##/);
  const section = end < 0 ? rest : rest.slice(0, end + 1);
  return section
    .split("\n")
    .map((line) => /^\| `([^`]+)` \| ([^|]+?) \|/.exec(line))
    .flatMap((match) => (match ? [`${match[2]}: ${match[1]}`] : []));
}
