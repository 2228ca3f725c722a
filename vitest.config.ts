import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Two suites, told apart by the file's name:
//   unit         `*.test.ts`: no PostgreSQL. TEST_DATABASE_URL points at a closed port, so a file that
//                reaches the database fails here, and createTestDatabase says to rename it.
//   integration  `*.db.test.ts`: each file clones its own database from the template globalSetup
//                migrates, so files run side by side; most of their time is spent waiting on
//                PostgreSQL, child processes and timers, hence more workers than cores.
// `npx vitest run some/file.test.ts` runs a file in its own suite; `npm run test:unit` and
// `npm run test:integration` run one suite each. The browser suite is vitest.e2e.config.ts.

/** Where the unit suite's database would be: nothing listens on port 1. */
export const NO_DATABASE_URL = "postgresql://unit-suite-has-no-database@127.0.0.1:1/postgres";

const SOURCES = ["lib", "worker", "app", "e2e"];

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: SOURCES.map((folder) => `${folder}/**/*.test.ts`),
          exclude: ["**/*.db.test.ts", "**/*.e2e.test.ts", "node_modules/**"],
          // Tests that read log lines configure their own logger; the rest keep the output short.
          env: { LOG_LEVEL: "warn", TEST_DATABASE_URL: NO_DATABASE_URL, DATABASE_URL: NO_DATABASE_URL },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: SOURCES.map((folder) => `${folder}/**/*.db.test.ts`),
          globalSetup: ["lib/testing/global-setup.ts"],
          env: { LOG_LEVEL: "warn" },
          maxWorkers: 4,
          // After the unit suite when both run in one command (vitest needs a group per worker count).
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
