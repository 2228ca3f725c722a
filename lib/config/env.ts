import { z } from "zod";
import { isProxyEntry } from "../http/client-address";
import { variablesWithDevelopmentValues } from "./development-values";
import { PROVIDER_NAMES, type ProviderName } from "./provider-names";
import { senderVocabularySchema, type SenderVocabulary } from "./sender-vocabulary";

// The only module that reads process.env. Everything else receives an AppConfig.

const csv = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part.length > 0),
  );

// Left alone, V8 lets a busy Next.js server's heap grow towards a quarter of the machine's memory
// before collecting in earnest (588 MB resident after a 10-minute soak, docs/benchmarks.md); its
// live set is far smaller, and with this limit the same soak stayed under 300 MB.
export const DEFAULT_WEB_HEAP_LIMIT_MB = 192;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const paymentSource = z.enum(["gateway", "host"]);

// Weakly authenticated providers (fixed token, unsigned body, nothing at all) refetch every event by
// default; signed ones only the high-impact events (disputes).
const DEFAULT_REFETCH: Record<ProviderName, string> = {
  stripe: "charge.dispute.*",
  standard: "",
  pagarme: "*",
  asaas: "*",
  mercadopago: "*",
  zoop: "*",
};

// Stripe charges carry the whole payment, so Stripe creates payments from its own events; the
// others send thin bodies and default to payments the host application registers.
const DEFAULT_PAYMENT_SOURCE: Record<ProviderName, "gateway" | "host"> = {
  stripe: "gateway",
  standard: "gateway",
  pagarme: "host",
  asaas: "host",
  mercadopago: "host",
  zoop: "host",
};

// Zone of gateways that send local times without an offset (Asaas: São Paulo wall clock).
const DEFAULT_TIMEZONE: Record<ProviderName, string> = {
  stripe: "UTC",
  standard: "UTC",
  pagarme: "UTC",
  asaas: "America/Sao_Paulo",
  mercadopago: "UTC",
  zoop: "UTC",
};

const DEFAULT_API_URL: Record<ProviderName, string | undefined> = {
  stripe: "https://api.stripe.com",
  standard: undefined,
  pagarme: "https://api.pagar.me/core/v5",
  asaas: "https://api.asaas.com/v3",
  mercadopago: "https://api.mercadopago.com",
  zoop: "https://api.zoop.ws/v1",
};

function providerSchema(name: ProviderName) {
  const upper = name.toUpperCase();
  return z
    .object({
      [`WEBHOOK_SECRET_${upper}`]: csv,
      [`${upper}_API_URL`]: z.url().optional(),
      [`${upper}_API_KEY`]: z.string().optional(),
      [`${upper}_MARKETPLACE_ID`]: z.string().optional(),
      [`PAYMENT_SOURCE_${upper}`]: paymentSource.default(DEFAULT_PAYMENT_SOURCE[name]),
      [`REFETCH_${upper}`]: z.string().default(DEFAULT_REFETCH[name]),
      // Minutes between scheduled reconciliation runs; 0 turns them off. They run only once the API's credentials are set.
      [`RECONCILE_INTERVAL_MINUTES_${upper}`]: z.coerce.number().int().min(0).default(60),
      [`${upper}_TIMEZONE`]: z
        .string()
        .default(DEFAULT_TIMEZONE[name])
        .refine((zone) => {
          try {
            new Intl.DateTimeFormat("en-US", { timeZone: zone });
            return true;
          } catch {
            return false;
          }
        }, "must be an IANA time zone such as America/Sao_Paulo"),
    })
    .transform((raw) => ({
      secrets: raw[`WEBHOOK_SECRET_${upper}`] as string[],
      apiUrl: (raw[`${upper}_API_URL`] as string | undefined) ?? DEFAULT_API_URL[name],
      credentials: {
        apiKey: raw[`${upper}_API_KEY`] as string | undefined,
        marketplaceId: raw[`${upper}_MARKETPLACE_ID`] as string | undefined,
      },
      paymentSource: raw[`PAYMENT_SOURCE_${upper}`] as "gateway" | "host",
      refetchTypes: (raw[`REFETCH_${upper}`] as string)
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part.length > 0 && part !== "none"),
      timeZone: raw[`${upper}_TIMEZONE`] as string,
      reconcileIntervalMinutes: raw[`RECONCILE_INTERVAL_MINUTES_${upper}`] as number,
      enabled: (raw[`WEBHOOK_SECRET_${upper}`] as string[]).length > 0,
    }));
}

// Retention, metrics, alerts and logs (issue 10).
const operationsSchema = {
  RETENTION_DAYS: positiveInt(90),
  RETENTION_CRON: z.string().default("30 3 * * *"),
  RETENTION_BATCH_SIZE: positiveInt(500),
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
};
/** The variable that holds one of a gateway's API credentials, e.g. ("zoop", "marketplaceId") -> ZOOP_MARKETPLACE_ID. */
export function credentialVariable(provider: ProviderName, credential: "apiKey" | "marketplaceId"): string {
  return `${provider.toUpperCase()}_${credential === "apiKey" ? "API_KEY" : "MARKETPLACE_ID"}`;
}

export const PAGARME_SIGNATURE_SCHEMES = ["rs256", "hub-signature", "basic"] as const;
export type PagarmeSignatureScheme = (typeof PAGARME_SIGNATURE_SCHEMES)[number];

// Where Pagar.me publishes the keys of X-Webhook-Asymmetric-Signature (its plugins' JWKS_URL).
const DEFAULT_PAGARME_JWKS_URL = "https://hubapi.pagar.me/.well-known/jwks.json";

const baseSchema = z.object({
  // Set by Next (`next start` production, `next dev` development), vitest (test) and our launcher.
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  DATABASE_POOL_MAX: positiveInt(10),
  DATABASE_CONNECT_TIMEOUT_MS: positiveInt(5_000),
  DATABASE_STATEMENT_TIMEOUT_MS: positiveInt(30_000),
  DATA_DIR: z.string().default(".data"),
  /** The embedded PostgreSQL's port (local trial only); unset: 54329, or any free port if taken. */
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  PORT: positiveInt(3000),
  INGEST_PORT: positiveInt(3001),
  WEB_HEAP_LIMIT_MB: positiveInt(DEFAULT_WEB_HEAP_LIMIT_MB),
  WEBHOOK_BODY_LIMIT_BYTES: positiveInt(1024 * 1024),
  WEBHOOK_TOLERANCE_SECONDS: positiveInt(300),
  SIGNATURE_FAILURES_MAX: positiveInt(10_000),
  // Events in flight per worker: two batches of 16 (lib/inbox/consume-webhooks.ts, docs/decisions.md).
  WORKER_CONCURRENCY: positiveInt(32),
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
  REFETCH_RATE_PER_SECOND: positiveInt(20),
  REFETCH_BREAKER_FAILURES: positiveInt(5),
  REFETCH_BREAKER_COOLDOWN_SECONDS: positiveInt(30),
  PAYMENTS_API_TOKENS: csv,
  HEALTH_TOKENS: csv,
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  NEXTAUTH_URL: z.url().optional(),
  LOGIN_MAX_FAILURES: positiveInt(5),
  LOGIN_WINDOW_MINUTES: positiveInt(15),
  LOGIN_BACKOFF_SECONDS: positiveInt(30),
  TRUSTED_PROXIES: csv.refine((entries) => entries.every(isProxyEntry), "must be comma-separated IP addresses or CIDR ranges"),
  DEMO_ADMIN_EMAIL: z.email().default("admin@example.com"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  REPLAY_CONFIRM_THRESHOLD: positiveInt(100),
  ...operationsSchema,
  ...reconcileSchema,
  PAGARME_SIGNATURES: csv.pipe(z.array(z.enum(PAGARME_SIGNATURE_SCHEMES, { message: `each must be one of ${PAGARME_SIGNATURE_SCHEMES.join(", ")}` }))),
  PAGARME_JWKS_URL: z.url().default(DEFAULT_PAGARME_JWKS_URL),
  PAGARME_JWKS_TTL_SECONDS: positiveInt(3600),
});

export type ProviderConfig = {
  secrets: string[];
  apiUrl: string | undefined;
  /** `<PROVIDER>_API_KEY` and (Zoop) `<PROVIDER>_MARKETPLACE_ID`; the driver says which its API needs. */
  credentials: { apiKey?: string; marketplaceId?: string };
  /** Webhooks are accepted: a secret is set (or, for Pagar.me, an accepted signature scheme is chosen). */
  enabled: boolean;
  paymentSource: "gateway" | "host";
  refetchTypes: string[];
  /** Zone for local times without an offset in this gateway's bodies. */
  timeZone: string;
  /** Minutes between scheduled reconciliation runs (0: none). */
  reconcileIntervalMinutes: number;
};

export type AppConfig = {
  nodeEnv: "development" | "production" | "test";
  databaseUrl: string | undefined;
  embeddedPostgresPort: number | undefined;
  databasePoolMax: number;
  /** Bounds on a connection attempt (or a wait for a pooled client) and on one statement. */
  databaseTimeouts: { connectMs: number; statementMs: number };
  /** Where the launcher keeps the embedded database and generated production secrets. */
  dataDir: string;
  port: number;
  /** Port of `npm run ingest`, the dedicated webhook server. */
  ingestPort: number;
  /** V8's old-space limit for `npm start`'s web process, in MB. */
  webHeapLimitMb: number;
  bodyLimitBytes: number;
  toleranceSeconds: number;
  signatureFailuresMax: number;
  worker: {
    concurrency: number;
    maxAttempts: number;
    /** Delay before retry n (1-based); the last value repeats. */
    retryDelaysSeconds: number[];
    /** A job running longer than this is presumed dead (worker killed) and retried. */
    jobExpireSeconds: number;
    /** How often the worker fails jobs whose worker died (stale heartbeat) or expired, and refreshes queue stats. */
    queueMonitorSeconds: number;
    /** How often a worker looks for attempts of dead workers (liveness lock gone) and frees their jobs. */
    reclaimSeconds: number;
  };
  sweeper: { cron: string; staleMinutes: number; batchSize: number };
  refetch: { timeoutMs: number; ratePerSecond: number; breakerFailures: number; breakerCooldownSeconds: number };
  paymentsApiTokens: string[];
  healthTokens: string[];
  authSecret: string | undefined;
  /** The console's public URL (next-auth's NEXTAUTH_URL); the launcher defaults it to localhost. */
  publicUrl: string | undefined;
  /**
   * maxFailures wrong passwords from one address, then that address waits backoffSeconds, doubling
   * per further failure, capped at windowMinutes; an address failing maxFailures x 4 times on any
   * accounts within windowMinutes is refused.
   */
  login: { maxFailures: number; windowMinutes: number; backoffSeconds: number };
  /** Proxies whose X-Forwarded-For is believed (addresses or CIDR ranges); none by default. */
  trustedProxies: string[];
  demoAdminEmail: string;
  logLevel: "debug" | "info" | "warn" | "error";
  /** Bulk replays larger than this need the count typed as confirmation. */
  replayConfirmThreshold: number;
  retention: { days: number; cron: string; batchSize: number; archiveDir: string };
  /** Bearer token for /api/metrics; unset, the endpoint answers 404. */
  metricsToken: string | undefined;
  /** Port of the worker's own /metrics; unset, the worker serves none. */
  workerMetricsPort: number | undefined;
  alerts: {
    webhookUrl: string | undefined;
    windowMinutes: number;
    cron: string;
    pendingAgeMinutes: number;
  };
  /**
   * Reconciliation runs: the first window reaches lookbackHours back; a window is at most
   * maxWindowHours, starts overlapMinutes before the last one ended and ends lagSeconds before now;
   * a run lists at most maxPages pages of pageSize; payments not final and untouched for stuckMinutes
   * are refetched, at most stuckLimit per run.
   */
  reconcile: {
    lookbackHours: number;
    maxWindowHours: number;
    overlapMinutes: number;
    lagSeconds: number;
    pageSize: number;
    maxPages: number;
    stuckMinutes: number;
    stuckLimit: number;
  };
  /** Unset: JSON lines, except under `npm run dev`, where the launcher asks for pretty. */
  logFormat: "json" | "pretty" | undefined;
  providers: Record<ProviderName, ProviderConfig>;
  /** Which Pagar.me signatures are accepted, and where its public keys are published. */
  pagarme: { signatures: PagarmeSignatureScheme[]; jwksUrl: string; jwksTtlSeconds: number };
  /** The Standard Webhooks sender's own status words, event types and field paths. */
  standardVocabulary: SenderVocabulary;
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

type EnvSource = Record<string, string | undefined>;

/** Validates an environment (process.env by default) once; the message names every bad variable. */
export function loadConfig(source: EnvSource = process.env): AppConfig {
  // Empty strings mean "unset", as they do in .env files.
  const env = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ""));
  const base = baseSchema.safeParse(env);
  const providerResults = PROVIDER_NAMES.map((name) => [name, providerSchema(name).safeParse(env)] as const);
  const vocabulary = senderVocabularySchema.safeParse(env);
  const problems = [
    ...(base.success ? [] : base.error.issues),
    ...(vocabulary.success ? [] : vocabulary.error.issues),
    ...providerResults.flatMap(([, result]) => (result.success ? [] : result.error.issues)),
  ].map((issue) => `  ${issue.path.join(".") || "(env)"}: ${issue.message}`);
  // The development values are public: production refuses them rather than run with them.
  if (env.NODE_ENV === "production") {
    for (const name of variablesWithDevelopmentValues(env)) {
      problems.push(`  ${name}: holds a development value from .env.example; set a secret of your own (or unset it)`);
    }
  }
  if (!base.success || !vocabulary.success || problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}`);
  }
  const b = base.data;
  const providers = Object.fromEntries(
    providerResults.map(([name, result]) => [name, result.data as ProviderConfig]),
  ) as Record<ProviderName, ProviderConfig>;
  // RS256 needs no shared secret: choosing PAGARME_SIGNATURES is what turns Pagar.me on. Unset, the
  // current scheme alone is accepted once WEBHOOK_SECRET_PAGARME turns it on; legacy ones are opt-in.
  const pagarmeSignatures: PagarmeSignatureScheme[] = b.PAGARME_SIGNATURES.length > 0 ? b.PAGARME_SIGNATURES : ["rs256"];
  providers.pagarme.enabled ||= b.PAGARME_SIGNATURES.length > 0;
  return {
    nodeEnv: b.NODE_ENV,
    databaseUrl: b.DATABASE_URL,
    embeddedPostgresPort: b.EMBEDDED_POSTGRES_PORT,
    databasePoolMax: b.DATABASE_POOL_MAX,
    databaseTimeouts: { connectMs: b.DATABASE_CONNECT_TIMEOUT_MS, statementMs: b.DATABASE_STATEMENT_TIMEOUT_MS },
    dataDir: b.DATA_DIR,
    port: b.PORT,
    ingestPort: b.INGEST_PORT,
    webHeapLimitMb: b.WEB_HEAP_LIMIT_MB,
    bodyLimitBytes: b.WEBHOOK_BODY_LIMIT_BYTES,
    toleranceSeconds: b.WEBHOOK_TOLERANCE_SECONDS,
    signatureFailuresMax: b.SIGNATURE_FAILURES_MAX,
    worker: {
      concurrency: b.WORKER_CONCURRENCY,
      maxAttempts: b.WORKER_MAX_ATTEMPTS,
      retryDelaysSeconds: b.WORKER_RETRY_DELAYS_SECONDS,
      jobExpireSeconds: b.WORKER_JOB_EXPIRE_SECONDS,
      queueMonitorSeconds: b.QUEUE_MONITOR_SECONDS,
      reclaimSeconds: b.WORKER_RECLAIM_SECONDS,
    },
    sweeper: { cron: b.SWEEPER_CRON, staleMinutes: b.SWEEPER_STALE_MINUTES, batchSize: b.SWEEPER_BATCH_SIZE },
    refetch: {
      timeoutMs: b.REFETCH_TIMEOUT_MS,
      ratePerSecond: b.REFETCH_RATE_PER_SECOND,
      breakerFailures: b.REFETCH_BREAKER_FAILURES,
      breakerCooldownSeconds: b.REFETCH_BREAKER_COOLDOWN_SECONDS,
    },
    paymentsApiTokens: b.PAYMENTS_API_TOKENS,
    /** Bearer tokens that read /api/health's details (monitoring); signed-in console users read them too. */
    healthTokens: b.HEALTH_TOKENS,
    authSecret: b.AUTH_SECRET,
    publicUrl: b.NEXTAUTH_URL,
    login: { maxFailures: b.LOGIN_MAX_FAILURES, windowMinutes: b.LOGIN_WINDOW_MINUTES, backoffSeconds: b.LOGIN_BACKOFF_SECONDS },
    trustedProxies: b.TRUSTED_PROXIES,
    demoAdminEmail: b.DEMO_ADMIN_EMAIL,
    logLevel: b.LOG_LEVEL,
    replayConfirmThreshold: b.REPLAY_CONFIRM_THRESHOLD,
    retention: { days: b.RETENTION_DAYS, cron: b.RETENTION_CRON, batchSize: b.RETENTION_BATCH_SIZE, archiveDir: b.ARCHIVE_DIR },
    metricsToken: b.METRICS_TOKEN,
    workerMetricsPort: b.WORKER_METRICS_PORT,
    alerts: {
      webhookUrl: b.ALERT_WEBHOOK_URL,
      windowMinutes: b.ALERT_WINDOW_MINUTES,
      cron: b.ALERT_CRON,
      pendingAgeMinutes: b.ALERT_PENDING_AGE_MINUTES,
    },
    reconcile: {
      lookbackHours: b.RECONCILE_LOOKBACK_HOURS,
      maxWindowHours: b.RECONCILE_MAX_WINDOW_HOURS,
      overlapMinutes: b.RECONCILE_OVERLAP_MINUTES,
      lagSeconds: b.RECONCILE_LAG_SECONDS,
      pageSize: b.RECONCILE_PAGE_SIZE,
      maxPages: b.RECONCILE_MAX_PAGES,
      stuckMinutes: b.RECONCILE_STUCK_MINUTES,
      stuckLimit: b.RECONCILE_STUCK_LIMIT,
    },
    logFormat: b.LOG_FORMAT,
    providers,
    pagarme: { signatures: pagarmeSignatures, jwksUrl: b.PAGARME_JWKS_URL, jwksTtlSeconds: b.PAGARME_JWKS_TTL_SECONDS },
    standardVocabulary: vocabulary.data,
  };
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
    throw new ConfigError(
      "DATABASE_URL is not set. Run `npm run dev` or `npm start` to use the embedded PostgreSQL, or set DATABASE_URL.",
    );
  }
  return config.databaseUrl;
}

/** Sets a variable for this process and the children it starts (the launcher's embedded database URL). */
export function setEnv(name: string, value: string): void {
  process.env[name] = value;
  resetConfig();
}

/** A copy of the environment for a child process. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

/** The server tests create their databases on (each test file gets its own database). */
export function testAdminDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
}
