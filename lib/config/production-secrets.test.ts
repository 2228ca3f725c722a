import { mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureProductionSecrets } from "./production-secrets";

const freshDir = () => join(mkdtempSync(join(tmpdir(), "inbox-secrets-")), "data");

describe("ensureProductionSecrets", () => {
  it("generates strong secrets once, in a 0600 file, and reuses them", () => {
    const dir = freshDir();
    const first = ensureProductionSecrets(dir, {});
    expect(first.generated).toEqual(["AUTH_SECRET", "PAYMENTS_API_TOKENS", "HEALTH_TOKENS", "METRICS_TOKEN", "ACCOUNT_SECRETS_KEY"]);
    expect(first.values.AUTH_SECRET).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(first.values.PAYMENTS_API_TOKENS).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(readFileSync(first.file, "utf8")).toContain(`AUTH_SECRET=${first.values.AUTH_SECRET}`);

    const second = ensureProductionSecrets(dir, {});
    expect(second).toMatchObject({
      generated: [],
      reused: ["AUTH_SECRET", "PAYMENTS_API_TOKENS", "HEALTH_TOKENS", "METRICS_TOKEN", "ACCOUNT_SECRETS_KEY"],
      values: first.values,
    });
    expect(ensureProductionSecrets(freshDir(), {}).values.AUTH_SECRET).not.toBe(first.values.AUTH_SECRET);
  });

  it("leaves variables the operator set alone and tightens a loosened file", () => {
    const dir = freshDir();
    const result = ensureProductionSecrets(dir, { AUTH_SECRET: "operator-provided-secret-0123456789abcdef" });
    expect(result.generated).toEqual(["PAYMENTS_API_TOKENS", "HEALTH_TOKENS", "METRICS_TOKEN", "ACCOUNT_SECRETS_KEY"]);
    expect(result.values).not.toHaveProperty("AUTH_SECRET");
    expect(readFileSync(result.file, "utf8")).not.toContain("AUTH_SECRET");
    chmodSync(result.file, 0o644);
    writeFileSync(result.file, readFileSync(result.file, "utf8"));
    ensureProductionSecrets(dir, { AUTH_SECRET: "operator-provided-secret-0123456789abcdef" });
    expect(statSync(result.file).mode & 0o777).toBe(0o600);
  });
});
