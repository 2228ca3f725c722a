import path from "node:path";
import tseslint from "typescript-eslint";

// Architecture as lint rules.
//
// lib/ is layered. Each folder of lib/ sits in LIB_LAYERS below, bottom first, and a file may import
// its own folder and folders listed before it, never one listed after it (rule `layers/lib-order`):
//
//   errors         the AppError class and its code -> HTTP status table
//   crypto         constant-time comparison, HMAC and hashes
//   request        inbound request helpers: body limits, client address, input schemas, headers
//   canonical      the payment vocabulary drivers and payments share
//   time           formatting instants in a zone
//   providers      one driver a gateway, and the registry of them
//   config         the environment, validated once
//   observability  logger and metrics
//   db             pools, Prisma, migrations, the embedded PostgreSQL
//   queue          pg-boss: queues, job schemas, dispatch
//   http           the OUTBOUND gateway client: timeouts, rate limit, circuit breaker, JWKS
//   audit          the audit log
//   auth           users, roles, permissions, API tokens
//   outbox         the payment change: its columns, the piece the payment statement embeds, its JSON,
//                  its numbering and the feed
//   payments       the state machine and its writes
//   inbox          the pipeline: ingest, process, replay, retention, partitions, queries
//   privacy        what each role may see of events and payments
//   *              feature rooms not named here: above the pipeline, below alerts; they may import
//                  each other, and nothing named before them imports them
//   alerts         alert rules and sending them
//   jobs           every queue as a definition (name, data, policy, schedule, run), installed and
//                  worked from one list; above the rooms whose work its jobs run (inbox, payments,
//                  reconcile, alerts), below ops (which may report on queues) and runtime
//   ops            health and metrics rendering
//   runtime        each process's wiring: configuration, pools, queue, signals, supervision
//
// Where a lower layer must act inside a higher one's work (a write inside the payment transaction),
// the lower room exposes a small function or takes a callback; it never imports upward.
// lib/testing (test harness) and *.test.ts files sit outside the order.
//
// Beyond the order: dependencies point inward (app and worker import lib, never back), providers know
// nothing of the database, payments know nothing of HTTP or of drivers, and client components never
// reach the database.
// (A later block replaces an earlier block's no-restricted-imports, so each block lists the lib-wide
// patterns too.)
const LIB_LAYERS = [
  "errors",
  "crypto",
  "request",
  "canonical",
  "time",
  "providers",
  "config",
  "observability",
  "db",
  "queue",
  "http",
  "audit",
  "auth",
  "outbox",
  "payments",
  "inbox",
  "privacy",
  "*",
  "alerts",
  "jobs",
  "ops",
  "runtime",
];
const layerOf = (folder) => (LIB_LAYERS.includes(folder) ? LIB_LAYERS.indexOf(folder) : LIB_LAYERS.indexOf("*"));

const libOrder = {
  meta: {
    type: "problem",
    schema: [],
    messages: { upward: "lib/{{from}} sits below lib/{{to}} in LIB_LAYERS (eslint.config.js): a lower layer never imports a higher one." },
  },
  create(context) {
    const file = path
      .relative(import.meta.dirname, context.filename)
      .split(path.sep)
      .join("/");
    const from = /^lib\/([^/]+)\//.exec(file)?.[1];
    if (!from) return {};
    const check = (source) => {
      const spec = source?.value;
      if (typeof spec !== "string") return;
      let target;
      if (spec.startsWith("@/")) target = spec.slice(2);
      else if (spec.startsWith(".")) target = path.posix.join(path.posix.dirname(file), spec);
      else return;
      const to = /^lib\/([^/]+)/.exec(target)?.[1];
      if (to && to !== from && layerOf(to) > layerOf(from)) context.report({ node: source, messageId: "upward", data: { from, to } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

const restrict = (patterns) => ["error", { patterns }];
// Data access (docs/decisions.md, "Data access"): SQL on lib/db/pool for every table but users, which
// lib/auth reaches through Prisma; the pg driver and Prisma's packages stay inside lib/db.
const driverPatterns = [
  {
    group: ["pg", "@prisma/*"],
    message: "the database drivers stay in lib/db: take Pool, Queryable and withTransaction from lib/db/pool.",
  },
];
const prismaPatterns = [
  {
    group: ["**/db/prisma", "**/db/generated/*", "**/db/generated/**"],
    message: "Prisma reaches the users table only (lib/auth); every other table is SQL on lib/db/pool (docs/decisions.md, Data access).",
  },
];
const libPatterns = [
  {
    group: ["@/app/*", "@/worker/*", "@/e2e/*", "**/app/*", "**/worker/*", "**/e2e/*"],
    message: "lib/ never imports app/, worker/ or e2e/.",
  },
  { group: ["next", "next/*", "react", "react-dom", "next-auth", "next-auth/*"], message: "lib/ is framework-free." },
];

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", ".data/", "lib/db/generated/", "next-env.d.ts", "e2e/artifacts/"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
  // No fire-and-forget: a promise nobody awaits or catches becomes an unhandled rejection that ends
  // the process (a database blip during a replay stopped the worker). `void p` doesn't count as
  // handling it. Needs type information, so only on the TypeScript sources.
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": ["error", { ignoreVoid: false }],
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false, attributes: false } }],
    },
  },
  {
    files: ["lib/**/*.ts"],
    ignores: ["lib/**/*.test.ts", "lib/testing/**"],
    plugins: { layers: { rules: { "lib-order": libOrder } } },
    rules: {
      "layers/lib-order": "error",
      "no-restricted-imports": restrict([...libPatterns, ...driverPatterns, ...prismaPatterns]),
    },
  },
  // The users' room and the processes' wiring hold a Prisma client; lib/db owns both drivers.
  {
    files: ["lib/auth/**/*.ts", "lib/runtime/**/*.ts"],
    ignores: ["lib/**/*.test.ts"],
    rules: { "no-restricted-imports": restrict([...libPatterns, ...driverPatterns]) },
  },
  {
    files: ["lib/db/**/*.ts"],
    ignores: ["lib/**/*.test.ts"],
    rules: { "no-restricted-imports": restrict(libPatterns) },
  },
  {
    files: ["lib/providers/**/*.ts"],
    ignores: ["lib/**/*.test.ts"],
    rules: {
      "no-restricted-imports": restrict([
        ...libPatterns,
        { group: ["@/lib/db/*", "../db/*", "pg", "pg-boss", "@prisma/*"], message: "providers know nothing of the database." },
      ]),
    },
  },
  {
    files: ["lib/payments/**/*.ts"],
    ignores: ["lib/**/*.test.ts"],
    rules: {
      "no-restricted-imports": restrict([
        ...libPatterns,
        ...driverPatterns,
        ...prismaPatterns,
        { group: ["@/lib/http/*", "../http/*"], message: "payments know nothing of HTTP." },
        {
          group: ["@/lib/providers/*", "../providers/*"],
          message: "payments know nothing of drivers: the shared vocabulary is lib/canonical.",
        },
      ]),
    },
  },
  {
    files: ["lib/canonical/**/*.ts"],
    ignores: ["lib/**/*.test.ts"],
    rules: {
      "no-restricted-imports": restrict([
        ...libPatterns,
        { group: ["@/lib/*", "../*", "pg", "pg-boss", "@prisma/*"], message: "the canonical vocabulary depends on nothing else in lib/." },
      ]),
    },
  },
  {
    files: ["app/**/*.client.tsx", "app/**/components/**/*.tsx"],
    rules: {
      "no-restricted-imports": restrict([
        // Types are erased at build time: a client component may describe server data by its type.
        {
          group: ["@/lib/db/*", "@/lib/runtime/*", "@/lib/inbox/*", "pg", "pg-boss"],
          message: "client components never import the database layer.",
          allowTypeImports: true,
        },
      ]),
    },
  },
);
