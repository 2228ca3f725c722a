import { readFile } from "node:fs/promises";
import { join } from "node:path";

export type DocView = { name: string; text: string };

// The guides the console's pages point to, shipped with the app in docs/ (an allow-list: a name
// never reaches the file system unchecked).
const DOCS = ["host-integration", "reconciliation", "operations", "configuration", "console"] as const;

/** One of docs/*.md as text, for the console's links to it; null for any other name. */
export async function getDocView(name: string): Promise<DocView | null> {
  const doc = DOCS.find((known) => known === name);
  if (!doc) return null;
  const text = await readFile(join(process.cwd(), "docs", `${doc}.md`), "utf8").catch(() => null);
  return text === null ? null : { name: `docs/${doc}.md`, text };
}
