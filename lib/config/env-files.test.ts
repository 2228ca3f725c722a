import { mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeEmbeddedUrl, useRunningEmbeddedDatabase, writeEmbeddedUrl } from "./env-files";

// `npm run cli` while `npm run dev` runs: the embedded database leaves its URL in .data/, the CLI
// picks it up when DATABASE_URL is unset, and never overrides one that is set.

const URL = "postgresql://postgres:webhook-inbox-local@127.0.0.1:54339/webhook_inbox";
let saved: string | undefined;
let cwd: string;

beforeEach(() => {
  saved = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  cwd = mkdtempSync(join(tmpdir(), "embedded-url-"));
  mkdirSync(join(cwd, ".data"));
});
afterEach(() => {
  if (saved === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = saved;
});

describe("the running embedded database's URL", () => {
  it("is found by the CLI while the database runs, and gone once it stops", () => {
    expect(useRunningEmbeddedDatabase(cwd)).toBeNull();
    writeEmbeddedUrl(URL, cwd);
    expect(statSync(join(cwd, ".data/embedded-database-url")).mode & 0o777).toBe(0o600);
    expect(useRunningEmbeddedDatabase(cwd)).toBe(URL);
    expect(process.env.DATABASE_URL).toBe(URL);
    delete process.env.DATABASE_URL;
    removeEmbeddedUrl(cwd);
    expect(useRunningEmbeddedDatabase(cwd)).toBeNull();
  });

  it("brings npm run dev's development values with its database, and no others", () => {
    writeFileSync(join(cwd, ".env.example"), "PRIVACY_HASH_KEY=from-env-example\n");
    const before = process.env.PRIVACY_HASH_KEY;
    try {
      delete process.env.PRIVACY_HASH_KEY;
      writeEmbeddedUrl(URL, cwd);
      expect(useRunningEmbeddedDatabase(cwd)).toBe(URL);
      expect(process.env.PRIVACY_HASH_KEY).toBeUndefined();
      delete process.env.DATABASE_URL;
      writeEmbeddedUrl(URL, cwd, true);
      expect(useRunningEmbeddedDatabase(cwd)).toBe(URL);
      expect(process.env.PRIVACY_HASH_KEY).toBe("from-env-example");
    } finally {
      if (before === undefined) delete process.env.PRIVACY_HASH_KEY;
      else process.env.PRIVACY_HASH_KEY = before;
    }
  });

  it("never replaces a DATABASE_URL that is set", () => {
    writeEmbeddedUrl(URL, cwd);
    process.env.DATABASE_URL = "postgresql://elsewhere/db";
    expect(useRunningEmbeddedDatabase(cwd)).toBeNull();
    expect(process.env.DATABASE_URL).toBe("postgresql://elsewhere/db");
  });
});
