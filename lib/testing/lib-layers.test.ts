import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The layer rule at the top of eslint.config.js, on scratch text in real files' places: an upward
// import fails lint, a downward one doesn't, whether written relative or with "@/".

// Only this rule, without type information: building the TypeScript program is what takes time.
const eslint = new ESLint({
  cwd: fileURLToPath(new URL("../..", import.meta.url)),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === "layers/lib-order" || ruleId === "no-restricted-imports",
});

async function layerErrors(filePath: string, code: string, ruleId = "layers/lib-order"): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((message) => message.ruleId === ruleId).map((message) => message.message);
}

describe("lib/ layers", () => {
  it("refuse an upward import and accept a downward one", async () => {
    expect(
      await layerErrors("lib/db/migrate.ts", 'import { installQueues } from "../queue/boss";\nexport const x = installQueues;\n'),
    ).toEqual(["lib/db sits below lib/queue in LIB_LAYERS (eslint.config.js): a lower layer never imports a higher one."]);
    expect(
      await layerErrors("lib/inbox/ingest/ingest-event.ts", 'export const load = () => import("@/lib/alerts/check-alerts");\n'),
    ).toHaveLength(1);
    expect(
      await layerErrors("lib/queue/boss.ts", 'import { withTransaction } from "../db/pool";\nexport const x = withTransaction;\n'),
    ).toEqual([]);
  });

  it("keep the test harness above every room and off e2e/", async () => {
    expect(
      await layerErrors(
        "lib/inbox/ingest/ingest-event.ts",
        'import { TEST_SECRETS } from "../../testing/test-app";\nexport const x = TEST_SECRETS;\n',
      ),
    ).toEqual(["lib/inbox sits below lib/testing in LIB_LAYERS (eslint.config.js): a lower layer never imports a higher one."]);
    expect(
      await layerErrors(
        "lib/testing/payment-events.ts",
        'import { planDeliveries } from "@/e2e/simulator/deliver";\nexport const x = planDeliveries;\n',
        "no-restricted-imports",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        "lib/testing/test-app.ts",
        'import { createPrisma } from "../db/prisma";\nexport const x = createPrisma;\n',
        "no-restricted-imports",
      ),
    ).toEqual([]);
  });
});
