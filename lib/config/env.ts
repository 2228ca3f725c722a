import { z } from "zod";
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
      [`PAYMENT_SOURCE_${upper}`]: paymentSource.default(DEFAULT_PAYMENT_SOURCE[name]),
      [`REFETCH_${upper}`]: z.string().default(DEFAULT_REFETCH[name]),
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
      apiKey: raw[`${upper}_API_KEY`] as string | undefined,
      paymentSource: raw[`PAYMENT_SOURCE_${upper}`] as "gateway" | "host",
      refetchTypes: (raw[`REFETCH_${upper}`] as string)
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part.length > 0 && part !== "none"),
      timeZone: raw[`${upper}_TIMEZONE`] as string,
    }));
}

const baseSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  DATABASE_POOL_MAX: positiveInt(10),
  /** The embedded PostgreSQL's port (local trial only); unset: 54329, or any free port if taken. */
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65_535).optional(),
  PORT: positiveInt(3000),
  WEBHOOK_BODY_LIMIT_BYTES: positiveInt(1024 * 1024),
  WEBHOOK_TOLERANCE_SECONDS: positiveInt(300),
  SIGNATURE_FAILURES_MAX: positiveInt(10_000),
  WORKER_CONCURRENCY: positiveInt(8),
  WORKER_MAX_ATTEMPTS: positiveInt(10),
  WORKER_RETRY_DELAYS_SECONDS: z
    .string()
    .default("10,30,60,300,900,1800,3600,7200,14400")
    .transform((value) => value.split(",").map((part) => Number(part.trim())))
    .refine((delays) => delays.length > 0 && delays.every((delay) => Number.isInteger(delay) && delay >= 0), {
      message: "must be comma-separated whole seconds",
    }),
  WORKER_JOB_EXPIRE_SECONDS: positiveInt(120),
  QUEUE_MONITOR_SECONDS: positiveInt(60),
  SWEEPER_CRON: z.string().default("* * * * *"),
  SWEEPER_STALE_MINUTES: positiveInt(5),
  SWEEPER_BATCH_SIZE: positiveInt(1000),
  REFETCH_TIMEOUT_MS: positiveInt(5000),
  REFETCH_RATE_PER_SECOND: positiveInt(20),
  REFETCH_BREAKER_FAILURES: positiveInt(5),
  REFETCH_BREAKER_COOLDOWN_SECONDS: positiveInt(30),
  PAYMENTS_API_TOKENS: csv,
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  NEXTAUTH_URL: z.url().optional(),
  LOGIN_MAX_FAILURES: positiveInt(5),
  LOGIN_WINDOW_MINUTES: positiveInt(15),
  DEMO_ADMIN_EMAIL: z.email().default("admin@example.com"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  REPLAY_CONFIRM_THRESHOLD: positiveInt(100),
});

export type ProviderConfig = {
  secrets: string[];
  apiUrl: string | undefined;
  apiKey: string | undefined;
  paymentSource: "gateway" | "host";
  refetchTypes: string[];
  /** Zone for local times without an offset in this gateway's bodies. */
  timeZone: string;
};

export type AppConfig = {
  databaseUrl: string | undefined;
  embeddedPostgresPort: number | undefined;
  databasePoolMax: number;
  port: number;
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
    /** How often the worker checks for expired jobs and refreshes queue stats. */
    queueMonitorSeconds: number;
  };
  sweeper: { cron: string; staleMinutes: number; batchSize: number };
  refetch: { timeoutMs: number; ratePerSecond: number; breakerFailures: number; breakerCooldownSeconds: number };
  paymentsApiTokens: string[];
  authSecret: string | undefined;
  /** The console's public URL (next-auth's NEXTAUTH_URL); the launcher defaults it to localhost. */
  publicUrl: string | undefined;
  login: { maxFailures: number; windowMinutes: number };
  demoAdminEmail: string;
  logLevel: "debug" | "info" | "warn" | "error";
  /** Bulk replays larger than this need the count typed as confirmation. */
  replayConfirmThreshold: number;
  providers: Record<ProviderName, ProviderConfig>;
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
  if (!base.success || !vocabulary.success || problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}`);
  }
  const b = base.data;
  const providers = Object.fromEntries(
    providerResults.map(([name, result]) => [name, result.data as ProviderConfig]),
  ) as Record<ProviderName, ProviderConfig>;
  return {
    databaseUrl: b.DATABASE_URL,
    embeddedPostgresPort: b.EMBEDDED_POSTGRES_PORT,
    databasePoolMax: b.DATABASE_POOL_MAX,
    port: b.PORT,
    bodyLimitBytes: b.WEBHOOK_BODY_LIMIT_BYTES,
    toleranceSeconds: b.WEBHOOK_TOLERANCE_SECONDS,
    signatureFailuresMax: b.SIGNATURE_FAILURES_MAX,
    worker: {
      concurrency: b.WORKER_CONCURRENCY,
      maxAttempts: b.WORKER_MAX_ATTEMPTS,
      retryDelaysSeconds: b.WORKER_RETRY_DELAYS_SECONDS,
      jobExpireSeconds: b.WORKER_JOB_EXPIRE_SECONDS,
      queueMonitorSeconds: b.QUEUE_MONITOR_SECONDS,
    },
    sweeper: { cron: b.SWEEPER_CRON, staleMinutes: b.SWEEPER_STALE_MINUTES, batchSize: b.SWEEPER_BATCH_SIZE },
    refetch: {
      timeoutMs: b.REFETCH_TIMEOUT_MS,
      ratePerSecond: b.REFETCH_RATE_PER_SECOND,
      breakerFailures: b.REFETCH_BREAKER_FAILURES,
      breakerCooldownSeconds: b.REFETCH_BREAKER_COOLDOWN_SECONDS,
    },
    paymentsApiTokens: b.PAYMENTS_API_TOKENS,
    authSecret: b.AUTH_SECRET,
    publicUrl: b.NEXTAUTH_URL,
    login: { maxFailures: b.LOGIN_MAX_FAILURES, windowMinutes: b.LOGIN_WINDOW_MINUTES },
    demoAdminEmail: b.DEMO_ADMIN_EMAIL,
    logLevel: b.LOG_LEVEL,
    replayConfirmThreshold: b.REPLAY_CONFIRM_THRESHOLD,
    providers,
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
