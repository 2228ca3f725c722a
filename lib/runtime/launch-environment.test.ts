import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/env";
import { ensureProductionSecrets } from "../config/production-secrets";
import { operatorSecrets } from "./launch-environment";

describe("a production start on the embedded database", () => {
  it("keeps every secret the operator set and generates only the others", () => {
    const config = loadConfig({
      HEALTH_TOKENS: "operator-health-token-0123456789",
      METRICS_TOKEN: "operator-metrics-token-0123456789",
      PAYMENTS_API_TOKENS: "stripe:operator-payments-token-0123",
      ACCOUNT_SECRETS_KEY: "operator-account-secrets-key-0123456789",
    });
    const secrets = ensureProductionSecrets(join(mkdtempSync(join(tmpdir(), "inbox-launch-")), "data"), operatorSecrets(config));
    expect(secrets.generated).toEqual(["AUTH_SECRET"]);
    expect(Object.keys(secrets.values)).toEqual(["AUTH_SECRET"]);
  });
});
