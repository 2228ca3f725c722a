import { z } from "zod";
import { isProxyEntry } from "../request/client-address";
import { isAllowedHostEntry } from "../request/host-allow-list";
import { DRIVERS, type ProviderName } from "../providers/registry";
import type { ProviderDriver } from "../providers/types";
import { variablesWithDevelopmentValues } from "./development-values";
import { weakSecrets } from "./secret-strength";
import { apiTokenList } from "./api-tokens";
import { csv, positiveInt } from "./env-values";
import { checkOidcVariables, oidcProductionProblems, oidcSettings, oidcVariables } from "./oidc-config";
import { providersSchema, providerVariables } from "./provider-config";

// The only module that reads the configuration from process.env (process-env.ts and env-files.ts
// change it, for this process and its children). Everything else receives an AppConfig: the output
// of configSchema.

// Left alone, V8 lets a busy Next.js server's heap grow towards a quarter of the machine's memory
// before collecting in earnest (588 MB resident after a 10-minute soak, docs/benchmarks.md); its
// live set is far smaller, and with a limit the same soak stayed under 300 MB. Not lower than this:
// Next.js alone holds some 120-145 MB, and a thousand requests arriving at once (the feed's long
// polls in e2e/floods) peak near 200 MB; at 192 MB that flood ended the process out of heap.
export const DEFAULT_WEB_HEAP_LIMIT_MB = 256;

// Retention, metrics, alerts and logs.
const operationsSchema = {
  RETENTION_DAYS: positiveInt(90),
  RETENTION_CRON: z.string().default("30 3 * * *"),
  RETENTION_BATCH_SIZE: positiveInt(500),
  RETENTION_PARTITION_MONTHS: z.coerce.number().int().min(0).default(0),
  // Off: payments are never purged. Under 5 years would cut into Brazil's tax prescription period;
  // 6 covers it (five years from the first day of the year after the fact).
  FINANCIAL_RETENTION: z.enum(["on", "off"]).default("off"),
  FINANCIAL_RETENTION_YEARS: z.coerce.number().int().min(5).optional(),
  ARCHIVE_DIR: z.string().default(".data/archive"),
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  WORKER_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  ALERT_WEBHOOK_URL: z.url().optional(),
  ALERT_WINDOW_MINUTES: positiveInt(15),
  ALERT_CRON: z.string().default("* * * * *"),
  ALERT_PENDING_AGE_MINUTES: positiveInt(15),
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
};

// Reconciliation against the gateways' list APIs (docs/reconciliation.md).
const reconcileSchema = {
  RECONCILE_LOOKBACK_HOURS: positiveInt(24),
  RECONCILE_MAX_WINDOW_HOURS: positiveInt(24),
  RECONCILE_OVERLAP_MINUTES: z.coerce.number().int().min(0).default(10),
  RECONCILE_LAG_SECONDS: z.coerce.number().int().min(0).default(60),
  RECONCILE_PAGE_SIZE: z.coerce.number().int().min(1).max(100).default(100),
  RECONCILE_MAX_PAGES: positiveInt(50),
  RECONCILE_STUCK_MINUTES: positiveInt(60),
  RECONCILE_STUCK_LIMIT: z.coerce.number().int().min(0).default(100),
  RECONCILE_RUNS_KEEP_DAYS: positiveInt(30),
  RECONCILE_CONCURRENCY: positiveInt(2),
};
// Pushing payment changes to the host (lib/destinations): one destination may come from here.
const destinationSchema = {
  DESTINATION_URL: z.url({ protocol: /^https?$/ }).optional(),
  DESTINATION_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/, "must be a whsec_ key (whsec_ and base64)")
    .optional(),
  DESTINATION_TIMEOUT_MS: positiveInt(10_000),
  // Doubling from 5 s, capped at 6 h: 22 retries over about 2.7 days; each delay gets +-25% jitter.
  DESTINATION_RETRY_DELAYS_SECONDS: z
    .string()
    .default("5,10,20,40,80,160,320,640,1280,2560,5120,10240,20480,21600,21600,21600,21600,21600,21600,21600,21600,21600")
    .transform((value) => value.split(",").map((part) => Number(part.trim())))
    .refine((delays) => delays.length > 0 && delays.every((delay) => Number.isFinite(delay) && delay >= 0), {
      message: "must be comma-separated seconds",
    }),
  DESTINATION_BREAKER_FAILURES: positiveInt(10),
  DESTINATION_BREAKER_COOLDOWN_SECONDS: positiveInt(30),
  DESTINATION_CONCURRENCY: positiveInt(64),
  DESTINATION_SECRET_OVERLAP_HOURS: positiveInt(24),
  DESTINATION_ALLOWED_HOSTS: csv.refine(
    (entries) => entries.every(isAllowedHostEntry),
    "must be comma-separated host names (*.example.com for subdomains), IP addresses or CIDR ranges",
  ),
};

const baseSchema = z
  .object({
    // Set by Next (`next start` production, `next dev` development), vitest (test) and our launcher.
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
    /** A streaming replica for the console's reads; unset, everything reads the primary. */
    DATABASE_READ_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
    /** Past this replay lag the console reads the primary again. */
    DATABASE_READ_MAX_LAG_SECONDS: positiveInt(30),
    /** What DATABASE_URL (and DATABASE_READ_URL) reach: the server itself, or PgBouncer in session or transaction pooling. */
    DATABASE_POOLER: z.enum(["none", "session", "transaction"]).default("none"),
    DATABASE_POOL_MAX: positiveInt(10),
    DATABASE_CONNECT_TIMEOUT_MS: positiveInt(5_000),
    DATABASE_STATEMENT_TIMEOUT_MS: positiveInt(30_000),
    /** Unset: .data (npm start) or a per-checkout directory outside the tree Next watches (npm run dev). */
    DATA_DIR: z.string().optional(),
    /** Where `npm run dev` keeps its default data directory (the XDG base directory convention). */
    XDG_DATA_HOME: z.string().optional(),
    /** The embedded PostgreSQL's port (local trial only); unset: 54329, or any free port if taken. */
    EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
    PORT: positiveInt(3000),
    INGEST_PORT: positiveInt(3001),
    // Concurrent deliveries stored in one statement and one commit (lib/inbox/ingest/group-commit.ts).
    INGEST_GROUP_COMMIT: z.enum(["on", "off"]).default("on"),
    INGEST_GROUP_COMMIT_WINDOW_MS: z.coerce.number().positive().default(2),
    INGEST_GROUP_COMMIT_MAX: positiveInt(64),
    WEB_HEAP_LIMIT_MB: positiveInt(DEFAULT_WEB_HEAP_LIMIT_MB),
    WEBHOOK_BODY_LIMIT_BYTES: positiveInt(1024 * 1024),
    // A client gets this long to send its headers (a socket that sends nothing is closed then too), and
    // then its whole request; past it, 408 and the socket is closed. Past HTTP_MAX_CONNECTIONS open
    // sockets, or HTTP_MAX_CONNECTIONS_PER_ADDRESS from one address, new ones are dropped.
    HTTP_HEADERS_TIMEOUT_MS: positiveInt(5_000),
    HTTP_REQUEST_TIMEOUT_MS: positiveInt(30_000),
    HTTP_MAX_CONNECTIONS: positiveInt(1024),
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: positiveInt(64),
    WEBHOOK_TOLERANCE_SECONDS: positiveInt(300),
    SIGNATURE_FAILURES_MAX: positiveInt(10_000),
    // Events in flight per worker: four batches of 64 (lib/jobs/definitions/webhooks.ts, docs/decisions.md).
    WORKER_CONCURRENCY: positiveInt(256),
    WORKER_MAX_ATTEMPTS: positiveInt(10),
    WORKER_RETRY_DELAYS_SECONDS: z
      .string()
      .default("10,30,60,300,900,1800,3600,7200,14400")
      .transform((value) => value.split(",").map((part) => Number(part.trim())))
      .refine((delays) => delays.length > 0 && delays.every((delay) => Number.isInteger(delay) && delay >= 0), {
        message: "must be comma-separated whole seconds",
      }),
    WORKER_JOB_EXPIRE_SECONDS: positiveInt(120),
    QUEUE_MONITOR_SECONDS: positiveInt(5),
    WORKER_RECLAIM_SECONDS: positiveInt(2),
    SWEEPER_CRON: z.string().default("* * * * *"),
    SWEEPER_STALE_MINUTES: positiveInt(5),
    SWEEPER_BATCH_SIZE: positiveInt(1000),
    REFETCH_TIMEOUT_MS: positiveInt(5000),
    REFETCH_MAX_RESPONSE_BYTES: positiveInt(8 * 1024 * 1024),
    REFETCH_RATE_PER_SECOND: positiveInt(20),
    REFETCH_BREAKER_FAILURES: positiveInt(5),
    REFETCH_BREAKER_COOLDOWN_SECONDS: positiveInt(30),
    PAYMENTS_API_TOKENS: apiTokenList,
    HEALTH_TOKENS: csv,
    AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    PRIVACY_HASH_KEY: z.string().min(32, "must be at least 32 characters").optional(),
    // Keys sealing the gateway accounts' secrets in the database, newest first (lib/gateway-accounts).
    ACCOUNT_SECRETS_KEY: csv.refine((keys) => keys.every((key) => key.length >= 32), "each key must be at least 32 characters"),
    // The accounts cache's safety net: how often each process checks the table besides its notifications.
    ACCOUNTS_RELOAD_SECONDS: positiveInt(30),
    NEXTAUTH_URL: z.url().optional(),
    LOGIN_MAX_FAILURES: positiveInt(5),
    LOGIN_WINDOW_MINUTES: positiveInt(15),
    LOGIN_BACKOFF_SECONDS: positiveInt(30),
    CONSOLE_REQUIRE_2FA: z.enum(["off", "admin", "all"]).default("off"),
    TRUSTED_PROXIES: csv.refine((entries) => entries.every(isProxyEntry), "must be comma-separated IP addresses or CIDR ranges"),
    DEMO_ADMIN_EMAIL: z.email().default("admin@example.com"),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
    REPLAY_CONFIRM_THRESHOLD: positiveInt(100),
    ...operationsSchema,
    ...reconcileSchema,
    ...destinationSchema,
    ...oidcVariables,
  })
  .refine((b) => Boolean(b.DESTINATION_URL) === Boolean(b.DESTINATION_SECRET), {
    message: "set DESTINATION_URL and DESTINATION_SECRET together (the secret signs what is sent to the URL)",
    path: ["DESTINATION_SECRET"],
  })
  // A period set with the purge off would read as a purge that never happens.
  .refine((b) => b.FINANCIAL_RETENTION === "on" || b.FINANCIAL_RETENTION_YEARS === undefined, {
    message: "is set but FINANCIAL_RETENTION is off: set FINANCIAL_RETENTION=on to purge payments that old, or unset it",
    path: ["FINANCIAL_RETENTION_YEARS"],
  })
  .superRefine(checkOidcVariables);

/**
 * The whole configuration: the application's variables and each registered driver's (those every
 * gateway has and those its driver declares), renamed into the shape the code reads.
 */
export function configSchema(drivers: readonly ProviderDriver<ProviderName>[] = DRIVERS) {
  return z.object({ base: baseSchema, providers: providersSchema(drivers) }).transform(({ base: b, providers }) => {
    return {
      nodeEnv: b.NODE_ENV,
      databaseUrl: b.DATABASE_URL,
      /** The console's read replica, and the lag past which it is not used. */
      readReplica: b.DATABASE_READ_URL ? { url: b.DATABASE_READ_URL, maxLagSeconds: b.DATABASE_READ_MAX_LAG_SECONDS } : undefined,
      /** What the database URLs reach; "transaction": no session state (no named statements, no session locks). */
      databasePooler: b.DATABASE_POOLER,
      embeddedPostgresPort: b.EMBEDDED_POSTGRES_PORT,
      databasePoolMax: b.DATABASE_POOL_MAX,
      /** Bounds on a connection attempt (or a wait for a pooled client) and on one statement. */
      databaseTimeouts: { connectMs: b.DATABASE_CONNECT_TIMEOUT_MS, statementMs: b.DATABASE_STATEMENT_TIMEOUT_MS },
      /** Where the launcher keeps the embedded database and generated production secrets; unset: launchDataDir() picks. */
      dataDir: b.DATA_DIR,
      xdgDataHome: b.XDG_DATA_HOME,
      port: b.PORT,
      /** Port of `npm run ingest`, the dedicated webhook server. */
      ingestPort: b.INGEST_PORT,
      /**
       * Deliveries that arrive while a commit is under way wait for it (at most `windowMs`) and are
       * then stored together, up to `maxBatch` per statement; off, each is its own statement.
       */
      groupCommit:
        b.INGEST_GROUP_COMMIT === "on" ? { windowMs: b.INGEST_GROUP_COMMIT_WINDOW_MS, maxBatch: b.INGEST_GROUP_COMMIT_MAX } : null,
      /** V8's old-space limit for `npm start`'s web process, in MB. */
      webHeapLimitMb: b.WEB_HEAP_LIMIT_MB,
      bodyLimitBytes: b.WEBHOOK_BODY_LIMIT_BYTES,
      /** Bounds on slow or many clients, for the web server and the ingest server alike. */
      http: {
        headersTimeoutMs: b.HTTP_HEADERS_TIMEOUT_MS,
        requestTimeoutMs: b.HTTP_REQUEST_TIMEOUT_MS,
        maxConnections: b.HTTP_MAX_CONNECTIONS,
        maxConnectionsPerAddress: b.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
      },
      toleranceSeconds: b.WEBHOOK_TOLERANCE_SECONDS,
      signatureFailuresMax: b.SIGNATURE_FAILURES_MAX,
      worker: {
        concurrency: b.WORKER_CONCURRENCY,
        maxAttempts: b.WORKER_MAX_ATTEMPTS,
        /** Delay before retry n (1-based); the last value repeats. */
        retryDelaysSeconds: b.WORKER_RETRY_DELAYS_SECONDS,
        /** A job running longer than this is presumed dead (worker killed) and retried. */
        jobExpireSeconds: b.WORKER_JOB_EXPIRE_SECONDS,
        /** How often the worker fails jobs whose worker died (stale heartbeat) or expired, and refreshes queue stats. */
        queueMonitorSeconds: b.QUEUE_MONITOR_SECONDS,
        /** How often a worker looks for attempts of dead workers (liveness lock gone) and frees their jobs. */
        reclaimSeconds: b.WORKER_RECLAIM_SECONDS,
      },
      sweeper: { cron: b.SWEEPER_CRON, staleMinutes: b.SWEEPER_STALE_MINUTES, batchSize: b.SWEEPER_BATCH_SIZE },
      refetch: {
        timeoutMs: b.REFETCH_TIMEOUT_MS,
        /** The largest answer of a gateway's API that is read (refetches and reconciliation pages). */
        maxResponseBytes: b.REFETCH_MAX_RESPONSE_BYTES,
        ratePerSecond: b.REFETCH_RATE_PER_SECOND,
        breakerFailures: b.REFETCH_BREAKER_FAILURES,
        breakerCooldownSeconds: b.REFETCH_BREAKER_COOLDOWN_SECONDS,
      },
      /** The host API's and the feed's tokens, each with the gateways it may read (null: all). */
      paymentsApiTokens: b.PAYMENTS_API_TOKENS,
      /** Bearer tokens that read /api/health's details (monitoring); signed-in console users read them too. */
      healthTokens: b.HEALTH_TOKENS,
      authSecret: b.AUTH_SECRET,
      /**
       * The key of the keyed hashes an erasure keeps of a subject's identifiers (docs/privacy.md);
       * AUTH_SECRET when unset. Changing it forgets who was erased: later deliveries are no longer redacted.
       */
      privacyHashKey: b.PRIVACY_HASH_KEY ?? b.AUTH_SECRET,
      /**
       * The gateway accounts kept in the database: the keys their secrets are sealed with (the first
       * seals, any opens; none: such accounts can't be added or read) and how often each process
       * checks the table for changes its notifications missed.
       */
      gatewayAccounts: { secretKeys: b.ACCOUNT_SECRETS_KEY, reloadSeconds: b.ACCOUNTS_RELOAD_SECONDS },
      /** The console's public URL (next-auth's NEXTAUTH_URL); the launcher defaults it to localhost. */
      publicUrl: b.NEXTAUTH_URL,
      /**
       * maxFailures wrong passwords from one address, then that address waits backoffSeconds, doubling
       * per further failure, capped at windowMinutes; an address failing maxFailures x 4 times on any
       * accounts within windowMinutes is refused.
       */
      login: { maxFailures: b.LOGIN_MAX_FAILURES, windowMinutes: b.LOGIN_WINDOW_MINUTES, backoffSeconds: b.LOGIN_BACKOFF_SECONDS },
      /** Who must sign in with a one-time code too: a user in scope without one enrols before anything else. */
      requireTwoFactor: b.CONSOLE_REQUIRE_2FA,
      /** Single sign-on over OpenID Connect (lib/config/oidc-config.ts); null: off. */
      oidc: oidcSettings(b),
      /** Proxies whose X-Forwarded-For is believed (addresses or CIDR ranges); none by default. */
      trustedProxies: b.TRUSTED_PROXIES,
      demoAdminEmail: b.DEMO_ADMIN_EMAIL,
      logLevel: b.LOG_LEVEL,
      /** Bulk replays larger than this need the count typed as confirmation. */
      replayConfirmThreshold: b.REPLAY_CONFIRM_THRESHOLD,
      /** partitionMonths: whole monthly partitions older than this many months are archived and dropped (0: never). */
      retention: {
        days: b.RETENTION_DAYS,
        cron: b.RETENTION_CRON,
        batchSize: b.RETENTION_BATCH_SIZE,
        archiveDir: b.ARCHIVE_DIR,
        partitionMonths: b.RETENTION_PARTITION_MONTHS,
        /** Payments untouched for this many years are purged with their history; null: never (FINANCIAL_RETENTION off). */
        financialYears: b.FINANCIAL_RETENTION === "on" ? (b.FINANCIAL_RETENTION_YEARS ?? 6) : null,
      },
      /** Bearer token for /api/metrics; unset, the endpoint answers 404. */
      metricsToken: b.METRICS_TOKEN,
      /** Port of the worker's own /metrics; unset, the worker serves none. */
      workerMetricsPort: b.WORKER_METRICS_PORT,
      alerts: {
        webhookUrl: b.ALERT_WEBHOOK_URL,
        windowMinutes: b.ALERT_WINDOW_MINUTES,
        cron: b.ALERT_CRON,
        pendingAgeMinutes: b.ALERT_PENDING_AGE_MINUTES,
      },
      /**
       * Reconciliation runs: the first window reaches lookbackHours back; a window is at most
       * maxWindowHours, starts overlapMinutes before the last one ended and ends lagSeconds before now;
       * a run lists at most maxPages pages of pageSize; payments not final and untouched for stuckMinutes
       * are refetched, at most stuckLimit per run. Runs that found nothing are kept runsKeepDays.
       */
      reconcile: {
        lookbackHours: b.RECONCILE_LOOKBACK_HOURS,
        maxWindowHours: b.RECONCILE_MAX_WINDOW_HOURS,
        overlapMinutes: b.RECONCILE_OVERLAP_MINUTES,
        lagSeconds: b.RECONCILE_LAG_SECONDS,
        pageSize: b.RECONCILE_PAGE_SIZE,
        maxPages: b.RECONCILE_MAX_PAGES,
        stuckMinutes: b.RECONCILE_STUCK_MINUTES,
        stuckLimit: b.RECONCILE_STUCK_LIMIT,
        /** Runs that found nothing are deleted this many days after they started (the maintenance job). */
        runsKeepDays: b.RECONCILE_RUNS_KEEP_DAYS,
        /** Scheduled runs of one gateway's accounts a worker runs at once (they share its rate limiter). */
        concurrency: b.RECONCILE_CONCURRENCY,
      },
      /** Unset: JSON lines, except under `npm run dev`, where the launcher asks for pretty. */
      logFormat: b.LOG_FORMAT,
      destinations: {
        /** The destination from configuration (DESTINATION_URL + DESTINATION_SECRET), if any. */
        configured: b.DESTINATION_URL && b.DESTINATION_SECRET ? { url: b.DESTINATION_URL, secret: b.DESTINATION_SECRET } : undefined,
        timeoutMs: b.DESTINATION_TIMEOUT_MS,
        /** Delay before retry n (1-based), before jitter; a delivery (a change on its way to a destination) is dead after the last. */
        retryDelaysSeconds: b.DESTINATION_RETRY_DELAYS_SECONDS,
        breakerFailures: b.DESTINATION_BREAKER_FAILURES,
        breakerCooldownSeconds: b.DESTINATION_BREAKER_COOLDOWN_SECONDS,
        /** Requests in flight per worker. */
        concurrency: b.DESTINATION_CONCURRENCY,
        /** How long a rotated-out secret keeps signing beside the new one. */
        secretOverlapHours: b.DESTINATION_SECRET_OVERLAP_HOURS,
        /** The hosts destinations may point at (none: any but the refused addresses). */
        allowedHosts: b.DESTINATION_ALLOWED_HOSTS,
      },
      providers,
    };
  });
}

export type AppConfig = z.output<ReturnType<typeof configSchema>>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

type EnvSource = Record<string, string | undefined>;

/** Validates an environment (process.env by default) once; the message names every bad variable. */
export function loadConfig(source: EnvSource = process.env, drivers: readonly ProviderDriver<ProviderName>[] = DRIVERS): AppConfig {
  // Empty strings mean "unset", as they do in .env files.
  const env = Object.fromEntries(
    Object.entries(source).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""),
  );
  const result = configSchema(drivers).safeParse({ base: env, providers: env });
  // An issue's path starts with the part of the schema that read the variable; the variable comes next.
  const problems = (result.success ? [] : result.error.issues).map(
    (issue) => `  ${issue.path.slice(1).join(".") || "(env)"}: ${issue.message}`,
  );
  // The development values are public, and weak secrets guessable: production refuses both.
  if (env.NODE_ENV === "production") {
    for (const name of variablesWithDevelopmentValues(env)) {
      problems.push(`  ${name}: holds a development value from .env.example; set a secret of your own (or unset it)`);
    }
    problems.push(...weakSecrets(env), ...oidcProductionProblems(env));
  }
  if (!result.success || problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}`);
  return result.data;
}

/**
 * Every variable the configuration reads from the environment, with the spelling docs/configuration.md
 * documents it under (a gateway's variables once, as WEBHOOK_SECRET_<PROVIDER> and so on).
 */
export function configVariables(drivers: readonly ProviderDriver<ProviderName>[] = DRIVERS): { variable: string; documentedAs: string }[] {
  const own = Object.keys(baseSchema.shape).map((variable) => ({ variable, documentedAs: variable }));
  return [...own, ...drivers.flatMap(providerVariables)];
}

let cached: AppConfig | undefined;

/** Forgets the validated configuration (after process.env changed). */
export function resetConfig(): void {
  cached = undefined;
}

/** The process's configuration, validated on first use. */
export function appConfig(): AppConfig {
  cached ??= loadConfig();
  return cached;
}

/** A database URL the process must have (web and worker); the launcher sets it for embedded mode. */
export function requireDatabaseUrl(config: AppConfig = appConfig()): string {
  if (!config.databaseUrl) {
    throw new ConfigError("DATABASE_URL is not set. Run `npm run dev` or `npm start` to use the embedded PostgreSQL, or set DATABASE_URL.");
  }
  return config.databaseUrl;
}
