import { readFileSync } from "node:fs";
import path from "node:path";
import tseslint from "typescript-eslint";

// Architecture as lint rules.
//
// lib/ is layered. Each folder of lib/ sits in LIB_LAYERS below, bottom first, and a file may import
// its own folder and folders listed before it, never one listed after it (rule `layers/lib-order`):
//
//   errors         the AppError class and its code -> HTTP status table
//   text           words for people: a count with its noun, a status's label
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
//   gateway-accounts  the accounts of each gateway (the environment's and the database's): their
//                  sealed secrets, the per-process cache every reception, refetch and
//                  reconciliation reads, and the changes that keep it current
//   auth           users, roles, permissions, API tokens
//   outbox         the payment change: its columns, the piece the payment statement embeds, its JSON,
//                  its numbering and the feed
//   payments       the state machine and its writes
//   inbox          the pipeline: ingest, process, replay, retention, partitions, queries
//   privacy        what each role may see of events and payments
//   *              feature rooms not named here: above the pipeline, below alerts; they may import
//                  each other, and nothing named before them imports them
//   alerts         alert rules and sending them
//   console        every console page's view and every console action: above each room a page shows
//                  (alerts included), the one room app/ reaches (see the rule on app/ below)
//   jobs           every queue as a definition (name, data, policy, schedule, run), installed and
//                  worked from one list; above the rooms whose work its jobs run (inbox, payments,
//                  reconcile, alerts), below ops (which may report on queues) and runtime
//   ops            health and metrics rendering
//   runtime        each process's wiring: configuration, pools, queue, signals, supervision
//   testing        the test harness (test databases, apps, workers, what the gateways send): it may
//                  use every room, and only test files, the simulator and the benchmarks use it
//
// Where a lower layer must act inside a higher one's work (a write inside the payment transaction),
// the lower room exposes a small function or takes a callback; it never imports upward.
// *.test.ts files sit outside the order.
//
// Tables are owned like imports (rule `tables/owner-writes`): TABLE_OWNERS names the one room that
// writes each table. Anywhere else in app/, lib/ and worker/ (tests, lib/testing, e2e/ and the
// migrations aside), a string or template literal that INSERTs into, UPDATEs, DELETEs from, MERGEs
// into, TRUNCATEs or COPYs into a table is an error, in a CTE or not, upsert or not (an `ON CONFLICT
// DO UPDATE` writes its INSERT's table); so is a Prisma write to the table's model. Reads are free.
// Another room that needs a write calls the owner's function (or passes it a callback inside its
// transaction). SQL files under lib/ are read the same way. A table named at run time counts as one
// of the inbox's partitions, the only tables so named; a new table needs its line here.
//
// Beyond the order: dependencies point inward (app and worker import lib, never back), providers know
// nothing of the database, payments know nothing of HTTP or of drivers, and client components never
// reach the database.
// (A later block replaces an earlier block's no-restricted-imports, so each block lists the lib-wide
// patterns too.)
export const LIB_LAYERS = [
  "errors",
  "text",
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
  "gateway-accounts",
  "auth",
  "outbox",
  "payments",
  "inbox",
  "privacy",
  "*",
  "alerts",
  "console",
  "jobs",
  "ops",
  "runtime",
  "testing",
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

// Who writes each table. Triggers in the migrations write the rollups and the e-mail index; they
// count as their table's owner.
export const TABLE_OWNERS = {
  _prisma_migrations: "db", // the migrator's ledger of applied files
  "pgboss.*": "queue", // pg-boss's own tables: written through pg-boss's API
  audit_log: "audit",
  users: "auth", // through Prisma
  login_attempts: "auth",
  payment_changes: "outbox", // inserted by the CTE piece the payment statement embeds
  payment_feed_head: "outbox",
  payments: "payments",
  payment_transitions: "payments",
  payment_hourly_totals: "payments", // a trigger adds to it, the compaction folds it
  customer_emails: "payments", // a trigger keeps it
  webhook_inbox: "inbox",
  "webhook_inbox_*": "inbox", // its partitions: by their own names, or named at run time
  inbox_event_keys: "inbox",
  inbox_hourly_counts: "inbox",
  inbox_partitions: "inbox",
  processing_attempts: "inbox",
  event_replays: "inbox",
  replay_runs: "inbox",
  signature_failures: "inbox",
  signature_nonces: "inbox",
  worker_heartbeats: "inbox",
  destinations: "destinations",
  deliveries: "destinations",
  delivery_attempts: "destinations",
  reconcile_runs: "reconcile",
  reconcile_cursors: "reconcile",
  gateway_accounts: "gateway-accounts",
  privacy_erasures: "erasure",
  erased_identifiers: "erasure",
};

// A template literal's ${...} becomes this character, so a name built at run time stays visible.
const RUN_TIME = "\u0000";
const NAME = String.raw`(?:"[^"]*"|[\w$\u0000]+)(?:\s*\.\s*(?:"[^"]*"|[\w$\u0000]+))?`;
const WRITES = [
  new RegExp(String.raw`\binsert\s+into\s+(${NAME})`, "gi"),
  // Not a row lock (FOR UPDATE, FOR NO KEY UPDATE), an upsert's DO UPDATE or a key's ON UPDATE.
  new RegExp(String.raw`(?<!\b(?:for|key|do|on)\s+)\bupdate\s+(?:only\s+)?(${NAME})`, "gi"),
  new RegExp(String.raw`\bdelete\s+from\s+(?:only\s+)?(${NAME})`, "gi"),
  new RegExp(String.raw`\bmerge\s+into\s+(?:only\s+)?(${NAME})`, "gi"),
  new RegExp(String.raw`\bcopy\s+(${NAME})(?:\s*\([^)]*\))?\s+from\b`, "gi"),
  new RegExp(String.raw`\btruncate\s+(?:table\s+)?((?:only\s+)?${NAME}(?:\s*\*)?(?:\s*,\s*(?:only\s+)?${NAME}(?:\s*\*)?)*)`, "gi"),
];

function tableKey(name) {
  const table = name
    .replace(/^only\s+/i, "")
    .replace(/\s*\*$/, "")
    .replace(/\s+/g, "")
    .replace(/"([^"]*)"|([^".]+)/g, (_, quoted, bare) => quoted ?? bare.toLowerCase())
    .replace(/^public\./, "");
  if (table.startsWith("pgboss.")) return "pgboss.*";
  if (table.startsWith("webhook_inbox_") || table.includes(RUN_TIME)) return "webhook_inbox_*";
  return table;
}

/** The owned tables a piece of SQL writes (comments and quoted strings aside). */
export function tablesWritten(sql) {
  const text = sql
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/'(?:[^']|'')*'/g, "''");
  const tables = new Set();
  for (const pattern of WRITES) {
    for (const match of text.matchAll(pattern)) {
      for (const name of match[1].split(",")) {
        const table = tableKey(name.trim());
        if (Object.hasOwn(TABLE_OWNERS, table)) tables.add(table);
      }
    }
  }
  return [...tables];
}

// Prisma's model accessors (prisma.user, tx.user...) and the tables they map to, from the schema.
const PRISMA_MODELS = Object.fromEntries(
  [
    ...readFileSync(path.join(import.meta.dirname, "prisma/schema.prisma"), "utf8").matchAll(/^model (\w+) \{[^}]*?@@map\("(\w+)"\)/gms),
  ].map(([, model, table]) => [model[0].toLowerCase() + model.slice(1), table]),
);
const PRISMA_WRITES = new Set([
  "create",
  "createMany",
  "createManyAndReturn",
  "update",
  "updateMany",
  "updateManyAndReturn",
  "upsert",
  "delete",
  "deleteMany",
]);

const ownerWrites = {
  meta: {
    type: "problem",
    schema: [],
    messages: {
      notOwner:
        "{{where}} writes {{table}}, which lib/{{owner}} owns (TABLE_OWNERS, eslint.config.js): call lib/{{owner}}'s function, or let it take a callback.",
    },
  },
  create(context) {
    const file = path
      .relative(import.meta.dirname, context.filename)
      .split(path.sep)
      .join("/");
    const room = /^lib\/([^/]+)\//.exec(file)?.[1];
    const where = room ? `lib/${room}` : file.split("/")[0];
    const check = (node, tables) => {
      for (const table of tables) {
        const owner = TABLE_OWNERS[table];
        if (owner !== room) context.report({ node, messageId: "notOwner", data: { where, table, owner } });
      }
    };
    return {
      Literal: (node) => {
        if (typeof node.value === "string") check(node, tablesWritten(node.value));
      },
      TemplateLiteral: (node) =>
        check(node, tablesWritten(node.quasis.map((quasi) => quasi.value.cooked ?? quasi.value.raw).join(RUN_TIME))),
      CallExpression: (node) => {
        const method = node.callee.type === "MemberExpression" ? node.callee : undefined;
        const model = method?.object.type === "MemberExpression" ? method.object.property.name : undefined;
        if (method && PRISMA_WRITES.has(method.property.name) && Object.hasOwn(PRISMA_MODELS, model)) check(node, [PRISMA_MODELS[model]]);
      },
    };
  },
};
// An SQL file under lib/ is read as one string, so the rule sees it as it sees a literal.
const sqlAsString = {
  preprocess: (text) => [{ text: `export default ${JSON.stringify(text)};\n`, filename: "sql.js" }],
  postprocess: (messages) => messages.flat(),
  supportsAutofix: false,
};

const restrict = (patterns) => ["error", { patterns }];
// Data access (docs/decisions.md, db): SQL on lib/db/pool for every table but users, which
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
    message: "Prisma reaches the users table only (lib/auth); every other table is SQL on lib/db/pool (docs/decisions.md, db).",
  },
];
const libPatterns = [
  {
    group: ["@/app/*", "@/worker/*", "@/e2e/*", "**/app/*", "**/worker/*", "**/e2e/*"],
    message: "lib/ never imports app/, worker/ or e2e/.",
  },
  { group: ["next", "next/*", "react", "react-dom", "next-auth", "next-auth/*"], message: "lib/ is framework-free." },
];

const consolePatterns = [
  {
    regex: String.raw`^(?:@/|(?:\.\./)+)lib/(?!console/|runtime/web-runtime$|request/|time/|text/|canonical/money$)`,
    message: "app/ reaches lib/ through lib/console (a page's get-*-view.ts, an action module): see eslint.config.js.",
  },
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
    ignores: ["lib/**/*.test.ts"],
    plugins: { layers: { rules: { "lib-order": libOrder } } },
    rules: {
      "layers/lib-order": "error",
      "no-restricted-imports": restrict([...libPatterns, ...driverPatterns, ...prismaPatterns]),
    },
  },
  {
    files: ["app/**/*.ts", "app/**/*.tsx", "lib/**/*.ts", "worker/**/*.ts", "*.ts"],
    ignores: ["**/*.test.ts", "lib/testing/**"],
    plugins: { tables: { rules: { "owner-writes": ownerWrites } } },
    rules: { "tables/owner-writes": "error" },
  },
  {
    files: ["lib/**/*.sql"],
    plugins: { tables: { processors: { "sql-as-string": sqlAsString } } },
    processor: "tables/sql-as-string",
  },
  {
    files: ["lib/**/*.sql/*.js"],
    plugins: { tables: { rules: { "owner-writes": ownerWrites } } },
    rules: { "tables/owner-writes": "error" },
  },
  // The users' room, the processes' wiring and the test harness hold a Prisma client; lib/db owns
  // both drivers.
  {
    files: ["lib/auth/**/*.ts", "lib/runtime/**/*.ts", "lib/testing/**/*.ts"],
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
  // The console reaches lib/ through lib/console (rule no-restricted-imports on app/): every page,
  // layout, component, server action and console route handler imports lib/console (each page's
  // view, get-*-view.ts, one call returning an explicit view object; the actions, *-actions.ts; the
  // console's URL parameters and exports) and, besides, only the glue lib/console cannot be:
  //   lib/runtime/web-runtime  the web process's pools, configuration and queue, handed to the view
  //                            (lib/console sits below lib/runtime in LIB_LAYERS: it never fetches them)
  //   lib/request              parsing what the request brings (row ids, body limits): the edge's job
  //   lib/time                 an instant in the viewer's zone, which client components format too
  //   lib/text                 a count in words and a status's label, which client components write too
  //   lib/canonical/money      the one money formatter, which the CSV and client components use too
  // Exempt, as framework glue: app/_server/ (the session and sign-in through next-auth, the action and
  // route-handler wrappers, CSV responses, API tokens: they use lib/auth, lib/audit, lib/errors,
  // lib/observability), and the machine API's routes, each an HTTP adapter over the one door of the
  // room its path names: webhooks (the inbox's reception pipeline), payments (registration, one
  // payment), payment-changes (the outbox's feed), privacy (a data subject's erasure), health and
  // metrics (ops), auth (next-auth).
  {
    files: ["app/**/*.ts", "app/**/*.tsx"],
    ignores: [
      "app/**/*.test.ts",
      "app/_server/**",
      "app/api/webhooks/**",
      "app/api/payments/**",
      "app/api/payment-changes/**",
      "app/api/privacy/**",
      "app/api/gateway-accounts/**",
      "app/api/health/**",
      "app/api/metrics/**",
      "app/api/auth/**",
    ],
    rules: { "no-restricted-imports": restrict(consolePatterns) },
  },
  // Every form says how it is sent. Before its page hydrates, a form with no method is sent by the
  // browser as a GET: its fields, a password or a gateway's secret among them, land in the URL, the
  // history and every proxy's access log. A form whose fields may be in the URL (filters) says
  // method="get"; any other says method="post".
  {
    files: ["app/**/*.tsx"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "JSXOpeningElement[name.name='form']:not(:has(JSXAttribute[name.name='method']))",
          message: 'Say how this form is sent: method="post", or method="get" for a filter whose fields may be in the URL.',
        },
      ],
    },
  },
  // A client component runs in the browser: of lib/ it takes formatting (lib/time, lib/text, lib/canonical/money) and the types of
  // its view, never a module that reaches the database.
  {
    files: ["app/**/*.client.tsx"],
    rules: {
      "no-restricted-imports": restrict([
        ...consolePatterns,
        {
          regex: "^@/lib/(?!time/|text/|canonical/money$)",
          message: "client components take only types from lib/ (import type): the rest reaches the database.",
          allowTypeImports: true,
        },
        { group: ["pg", "pg-boss"], message: "client components never import the database layer." },
      ]),
    },
  },
);
