import { z } from "zod";
import { recordAudit, type Actor, type AuditAction } from "../audit/record-audit";
import { DEFAULT_ACCOUNT, isAccountName } from "../canonical/gateway-account";
import type { AppConfig } from "../config/env";
import { accountSecretProblem } from "../config/secret-strength";
import { withTransaction, type Pool, type PoolClient, type Queryable } from "../db/pool";
import { AppError } from "../errors/app-error";
import { findDriver, isProviderName, PROVIDER_NAMES, type ProviderName } from "../providers/registry";
import { commaListSchema } from "../request/input-schemas";
import type { ApiCredential, ApiCredentials } from "../providers/types";
import { ACCOUNTS_CHANNEL } from "./account-directory";
import { environmentAccounts, type AccountSource } from "./gateway-account";
import { AccountKeyError, fingerprint, openMaterial, sealMaterial, type AccountMaterial } from "./sealed-account";

// Adding, changing, rotating, disabling and removing the accounts kept in the database: the one place
// that writes `gateway_accounts`, for the host API, the console and the CLI alike. Every change is
// one transaction that writes the row (a new version), its audit entry and the notification every
// process's cache listens for. Secrets go in sealed and come out as fingerprints only.

export type AccountDeps = { pool: Pool; config: AppConfig };

const secretText = z.string().min(1).max(1000);

/**
 * A change to an account: what is given replaces what it had, what is left out stays. `secrets`
 * replaces the whole list (during a rotation: the new one first, then the old); a credential set to
 * null is removed; `gatewayAccountId` null makes the name the id again.
 */
export const accountChangeSchema = z
  .object({
    secrets: z.array(secretText).max(10).optional(),
    credentials: z
      .object({ apiKey: secretText.nullable().optional(), marketplaceId: secretText.nullable().optional() })
      .strict()
      .optional(),
    gatewayAccountId: z.string().trim().min(1).max(200).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type AccountChange = z.infer<typeof accountChangeSchema>;

/** What may be shown of an account: never a secret, only fingerprints and "set". */
export type GatewayAccountView = {
  provider: ProviderName;
  name: string;
  source: AccountSource;
  enabled: boolean;
  /** The gateway's own id of the account its events are matched by (the name when none was given). */
  gatewayAccountId: string | null;
  /** Where the gateway delivers this account's webhooks. */
  webhookPath: string;
  /** Newest first, as verification tries them. */
  secrets: { fingerprint: string; addedAt: string | null }[];
  credentials: Partial<Record<ApiCredential, { fingerprint: string }>>;
  createdAt: string | null;
  updatedAt: string | null;
};

type Fingerprints = {
  secrets: { fingerprint: string; addedAt: string }[];
  credentials: Partial<Record<ApiCredential, { fingerprint: string }>>;
};

type StoredRow = {
  provider: ProviderName;
  name: string;
  enabled: boolean;
  gatewayAccountId: string | null;
  sealed: string;
  secretFingerprints: Fingerprints["secrets"];
  credentialFingerprints: Fingerprints["credentials"];
  createdAt: string;
  updatedAt: string;
};

// Times as the host API writes them everywhere: UTC with microseconds (`2026-12-01T21:40:12.345678Z`).
const utc = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const utcNow = () => new Date().toISOString().replace("Z", "000Z");

const ROW_COLUMNS = `provider, name, enabled, gateway_account_id AS "gatewayAccountId", sealed, secret_fingerprints AS "secretFingerprints",
  credential_fingerprints AS "credentialFingerprints", ${utc("created_at")} AS "createdAt", ${utc("updated_at")} AS "updatedAt"`;

export const webhookPath = (provider: string, name: string) =>
  name === DEFAULT_ACCOUNT ? `/api/webhooks/${provider}` : `/api/webhooks/${provider}/${encodeURIComponent(name)}`;

function viewOf(row: StoredRow): GatewayAccountView {
  return {
    provider: row.provider,
    name: row.name,
    source: "database",
    enabled: row.enabled,
    gatewayAccountId: row.gatewayAccountId ?? row.name,
    webhookPath: webhookPath(row.provider, row.name),
    secrets: row.secretFingerprints,
    credentials: row.credentialFingerprints,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The views of the accounts the environment names (never written here). */
export function environmentAccountViews(config: AppConfig, provider?: ProviderName): GatewayAccountView[] {
  return environmentAccounts(config)
    .filter((account) => !provider || account.provider === provider)
    .map((account) => ({
      provider: account.provider,
      name: account.name,
      source: "environment" as const,
      enabled: true,
      gatewayAccountId: account.gatewayAccountId,
      webhookPath: webhookPath(account.provider, account.name),
      secrets: account.secrets.map((secret) => ({ fingerprint: fingerprint(secret), addedAt: null })),
      credentials: credentialFingerprints(account.credentials),
      createdAt: null,
      updatedAt: null,
    }));
}

function credentialFingerprints(credentials: ApiCredentials): Fingerprints["credentials"] {
  const shown: Fingerprints["credentials"] = {};
  for (const [credential, value] of Object.entries(credentials) as [ApiCredential, string | undefined][])
    if (value !== undefined) shown[credential] = { fingerprint: fingerprint(value) };
  return shown;
}

/** The driver of a known gateway, or a 404. */
function driverOf(provider: string) {
  const driver = findDriver(provider);
  if (!driver) throw new AppError("NOT_FOUND", `unknown provider "${provider}"`);
  return driver;
}

/** A name the database may hold: a valid name, not the default's, not one the environment defines. */
function checkWritableName(config: AppConfig, provider: ProviderName, name: string): void {
  if (!isAccountName(name))
    throw new AppError("BAD_REQUEST", "an account name is letters, digits, _ . - (100 at most), starting with a letter or digit");
  if (name === DEFAULT_ACCOUNT)
    throw new AppError(
      "CONFLICT",
      `"${DEFAULT_ACCOUNT}" is the gateway's own variables' account (WEBHOOK_SECRET_${provider.toUpperCase()} ...)`,
    );
  if (config.providers[provider].accounts.some((account) => account.name === name))
    throw new AppError("CONFLICT", `account "${name}" is defined in the environment (${provider.toUpperCase()}_ACCOUNTS): change it there`);
}

/** Production refuses weak and development secrets here as it does in the environment. */
function checkSecrets(config: AppConfig, provider: ProviderName, secrets: readonly string[]): void {
  if (config.nodeEnv !== "production") return;
  for (const secret of secrets) {
    const problem = accountSecretProblem(provider, secret);
    if (problem) throw new AppError("BAD_REQUEST", `secrets: ${problem}`);
  }
}

function sealed(config: AppConfig, material: AccountMaterial): string {
  try {
    return sealMaterial(config.gatewayAccounts.secretKeys, material);
  } catch (error) {
    if (error instanceof AccountKeyError) throw new AppError("NOT_CONFIGURED", error.message);
    throw error;
  }
}

/** The row's material, or a 503 naming why it can't be opened (a change would have to overwrite it blind). */
function opened(config: AppConfig, row: StoredRow): AccountMaterial {
  const material = openMaterial(config.gatewayAccounts.secretKeys, row.sealed);
  if (!material)
    throw new AppError("NOT_CONFIGURED", `no key in ACCOUNT_SECRETS_KEY opens the secrets of ${row.provider} account "${row.name}"`);
  return material.material;
}

async function lockRow(client: PoolClient, provider: string, name: string): Promise<StoredRow | undefined> {
  const { rows } = await client.query<StoredRow>(
    `SELECT ${ROW_COLUMNS} FROM gateway_accounts WHERE provider = $1 AND name = $2 FOR UPDATE`,
    [provider, name],
  );
  return rows[0];
}

async function notify(client: Queryable, provider: string, name: string): Promise<void> {
  await client.query(`SELECT pg_notify($1, $2)`, [ACCOUNTS_CHANNEL, JSON.stringify({ provider, name })]);
}

/** Secrets as stored beside the sealed ones: each one's fingerprint, added when first seen. */
function secretFingerprints(secrets: readonly string[], before: Fingerprints["secrets"]): Fingerprints["secrets"] {
  const now = utcNow();
  return secrets.map((secret) => {
    const print = fingerprint(secret);
    return { fingerprint: print, addedAt: before.find((entry) => entry.fingerprint === print)?.addedAt ?? now };
  });
}

const WRITE = `
  INSERT INTO gateway_accounts (provider, name, enabled, gateway_account_id, sealed, secret_fingerprints, credential_fingerprints)
  VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)
  ON CONFLICT (provider, name) DO UPDATE
    SET enabled = EXCLUDED.enabled, gateway_account_id = EXCLUDED.gateway_account_id, sealed = EXCLUDED.sealed,
        secret_fingerprints = EXCLUDED.secret_fingerprints, credential_fingerprints = EXCLUDED.credential_fingerprints,
        version = nextval('gateway_accounts_version_seq'), updated_at = now()
  RETURNING ${ROW_COLUMNS}`;

/** Writes the account's new state with its audit entry and notification, in the caller's transaction. */
async function write(
  client: PoolClient,
  next: {
    provider: ProviderName;
    name: string;
    enabled: boolean;
    gatewayAccountId: string | null;
    material: AccountMaterial;
    before?: StoredRow;
  },
  config: AppConfig,
  audit: { actor: Actor; action: AuditAction; details?: Record<string, unknown> },
): Promise<GatewayAccountView> {
  const prints = secretFingerprints(next.material.secrets, next.before?.secretFingerprints ?? []);
  const credentials = credentialFingerprints(next.material.credentials);
  const values = [
    next.provider,
    next.name,
    next.enabled,
    next.gatewayAccountId,
    sealed(config, next.material),
    JSON.stringify(prints),
    JSON.stringify(credentials),
  ];
  const { rows } = await client.query<StoredRow>(WRITE, values).catch((error: unknown) => {
    // The one unique key besides the name: the gateway id each account stands for.
    if ((error as { code?: string }).code !== "23505") throw error;
    const id = next.gatewayAccountId ?? next.name;
    throw new AppError("CONFLICT", `another ${next.provider} account already stands for the gateway's account id "${id}"`);
  });
  const view = viewOf(rows[0]!);
  await recordAudit(client, {
    actor: audit.actor.name,
    ip: audit.actor.ip,
    action: audit.action,
    details: {
      provider: next.provider,
      account: next.name,
      enabled: next.enabled,
      gatewayAccountId: view.gatewayAccountId,
      secrets: prints.map((entry) => entry.fingerprint),
      credentials: Object.keys(credentials),
      ...audit.details,
    },
  });
  await notify(client, next.provider, next.name);
  return view;
}

/** Within the account's transaction: its row locked (undefined: none yet), checked first. */
async function withAccount<T>(
  deps: AccountDeps,
  provider: string,
  name: string,
  work: (client: PoolClient, driver: ReturnType<typeof driverOf>, row: StoredRow | undefined) => Promise<T>,
): Promise<T> {
  const driver = driverOf(provider);
  checkWritableName(deps.config, driver.name, name);
  return withTransaction(deps.pool, async (client) => work(client, driver, await lockRow(client, driver.name, name)));
}

const missing = (provider: string, name: string) => new AppError("NOT_FOUND", `no ${provider} account "${name}" in the database`);

/**
 * Adds the account or changes it (what the change leaves out stays as it was): `created` says which.
 * Credentials are those its driver's API uses; a secret production finds weak is refused.
 */
export async function putGatewayAccount(
  deps: AccountDeps,
  provider: string,
  name: string,
  change: AccountChange,
  actor: Actor,
): Promise<{ created: boolean; account: GatewayAccountView }> {
  const parsed = accountChangeSchema.parse(change);
  return withAccount(deps, provider, name, async (client, driver, row) => {
    const uses: readonly string[] = driver.apiAuth?.uses ?? [];
    for (const credential of Object.keys(parsed.credentials ?? {}))
      if (!uses.includes(credential))
        throw new AppError("BAD_REQUEST", `credentials.${credential}: ${driver.label}'s API takes no ${credential}`);
    if (parsed.secrets) checkSecrets(deps.config, driver.name, parsed.secrets);
    const before: AccountMaterial = row ? opened(deps.config, row) : { secrets: [], credentials: {} };
    const credentials: ApiCredentials = { ...before.credentials };
    for (const [credential, value] of Object.entries(parsed.credentials ?? {}) as [ApiCredential, string | null | undefined][]) {
      if (value === null) delete credentials[credential];
      else if (value !== undefined) credentials[credential] = value;
    }
    const gatewayAccountId = parsed.gatewayAccountId === undefined ? (row?.gatewayAccountId ?? null) : parsed.gatewayAccountId;
    const account = await write(
      client,
      {
        provider: driver.name,
        name,
        enabled: parsed.enabled ?? row?.enabled ?? true,
        gatewayAccountId: gatewayAccountId === name ? null : gatewayAccountId,
        material: { secrets: parsed.secrets ?? before.secrets, credentials },
        before: row,
      },
      deps.config,
      { actor, action: row ? "gateway_account_updated" : "gateway_account_added" },
    );
    return { created: !row, account };
  });
}

/**
 * A secret rotation: `secret` is put first (verifying at once) and the old ones keep verifying until
 * `retireOld` drops every secret but the newest; `apiKey` replaces the API key (an API key has no
 * overlap to keep: each read uses one).
 */
export async function rotateGatewayAccount(
  deps: AccountDeps,
  provider: string,
  name: string,
  rotation: { secret?: string; apiKey?: string; retireOld?: boolean },
  actor: Actor,
): Promise<GatewayAccountView> {
  return withAccount(deps, provider, name, async (client, driver, row) => {
    if (!row) throw missing(driver.name, name);
    if (rotation.secret === undefined && rotation.apiKey === undefined && !rotation.retireOld)
      throw new AppError("BAD_REQUEST", "give a new secret, a new API key, or retire the old secrets");
    if (rotation.secret !== undefined) checkSecrets(deps.config, driver.name, [rotation.secret]);
    const before = opened(deps.config, row);
    let secrets =
      rotation.secret === undefined ? before.secrets : [rotation.secret, ...before.secrets.filter((old) => old !== rotation.secret)];
    if (rotation.retireOld) secrets = secrets.slice(0, 1);
    const credentials = rotation.apiKey === undefined ? before.credentials : { ...before.credentials, apiKey: rotation.apiKey };
    return write(
      client,
      {
        provider: driver.name,
        name,
        enabled: row.enabled,
        gatewayAccountId: row.gatewayAccountId,
        material: { secrets, credentials },
        before: row,
      },
      deps.config,
      {
        actor,
        action: "gateway_account_rotated",
        details: {
          addedSecret: rotation.secret !== undefined,
          newApiKey: rotation.apiKey !== undefined,
          retiredOld: rotation.retireOld === true,
        },
      },
    );
  });
}

/** Turns the account's reception on or off (its secrets and data stay). */
export async function setGatewayAccountEnabled(
  deps: AccountDeps,
  provider: string,
  name: string,
  enabled: boolean,
  actor: Actor,
): Promise<GatewayAccountView> {
  return withAccount(deps, provider, name, async (client, driver, row) => {
    if (!row) throw missing(driver.name, name);
    const { rows } = await client.query<StoredRow>(
      `UPDATE gateway_accounts SET enabled = $3, version = nextval('gateway_accounts_version_seq'), updated_at = now()
        WHERE provider = $1 AND name = $2 RETURNING ${ROW_COLUMNS}`,
      [driver.name, name, enabled],
    );
    await recordAudit(client, {
      actor: actor.name,
      ip: actor.ip,
      action: enabled ? "gateway_account_enabled" : "gateway_account_disabled",
      details: { provider: driver.name, account: name },
    });
    await notify(client, driver.name, name);
    return viewOf(rows[0]!);
  });
}

/** Removes the account: its URL answers 404 from then on; its events, payments and changes keep its name. */
export async function removeGatewayAccount(deps: AccountDeps, provider: string, name: string, actor: Actor): Promise<void> {
  await withAccount(deps, provider, name, async (client, driver, row) => {
    if (!row) throw missing(driver.name, name);
    await client.query(`DELETE FROM gateway_accounts WHERE provider = $1 AND name = $2`, [driver.name, name]);
    await recordAudit(client, {
      actor: actor.name,
      ip: actor.ip,
      action: "gateway_account_removed",
      details: { provider: driver.name, account: name },
    });
    await notify(client, driver.name, name);
  });
}

/** One account as it may be shown (the environment's too), or a 404. */
export async function getGatewayAccountView(db: Queryable, config: AppConfig, provider: string, name: string): Promise<GatewayAccountView> {
  const driver = driverOf(provider);
  const fromEnvironment = environmentAccountViews(config, driver.name).find((account) => account.name === name);
  if (fromEnvironment) return fromEnvironment;
  const { rows } = await db.query<StoredRow>(`SELECT ${ROW_COLUMNS} FROM gateway_accounts WHERE provider = $1 AND name = $2`, [
    driver.name,
    name,
  ]);
  if (!rows[0]) throw new AppError("NOT_FOUND", `no ${driver.name} account "${name}"`);
  return viewOf(rows[0]);
}

export const accountListSchema = z.object({
  provider: z.string().optional(),
  /** A prefix of the name. */
  search: z.string().max(100).optional(),
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
});

/** The database's accounts, one page by provider and name, with their total. */
export async function listGatewayAccountViews(
  db: Queryable,
  filter: z.input<typeof accountListSchema>,
): Promise<{ accounts: GatewayAccountView[]; total: number }> {
  const { provider, search, page, pageSize } = accountListSchema.parse(filter);
  const { rows } = await db.query<StoredRow & { total: number }>(
    `SELECT ${ROW_COLUMNS}, count(*) OVER ()::int AS total FROM gateway_accounts
      WHERE ($1::text IS NULL OR provider = $1) AND ($2::text IS NULL OR starts_with(name, $2))
      ORDER BY provider, name LIMIT $3 OFFSET $4`,
    [provider ?? null, search || null, pageSize, (page - 1) * pageSize],
  );
  if (rows.length === 0 && page > 1) {
    const { rows: counted } = await db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM gateway_accounts WHERE ($1::text IS NULL OR provider = $1) AND ($2::text IS NULL OR starts_with(name, $2))`,
      [provider ?? null, search || null],
    );
    return { accounts: [], total: counted[0]!.total };
  }
  return { accounts: rows.map(viewOf), total: rows[0]?.total ?? 0 };
}

// The page API's cursor is opaque to readers; inside, the last account given (its provider and name).
const encodeAccountCursor = (provider: string, name: string) => Buffer.from(JSON.stringify([provider, name])).toString("base64url");
const accountCursorSchema = z
  .string()
  .max(300)
  .transform((value, context) => {
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(value, "base64url").toString());
    } catch {
      decoded = null;
    }
    const [provider, name] = Array.isArray(decoded) && decoded.length === 2 ? (decoded as unknown[]) : [];
    if (typeof provider !== "string" || typeof name !== "string" || !isProviderName(provider) || !isAccountName(name)) {
      context.addIssue({ code: "custom", message: "not a cursor this list gave out" });
      return z.NEVER;
    }
    return { provider, name };
  });

export const MAX_ACCOUNT_PAGE = 500;

/** `GET /api/gateway-accounts`: `provider` a comma-separated list, `after` the previous page's cursor. */
export const accountPageQuerySchema = z.object({
  provider: commaListSchema(PROVIDER_NAMES, "provider").optional(),
  after: accountCursorSchema.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_ACCOUNT_PAGE).default(100),
});

export type AccountPage = { data: GatewayAccountView[]; total: number; cursor: string | null };

/**
 * A page of the accounts of these gateways (undefined: all), the environment's and the database's,
 * by provider and name after the cursor, with how many there are in all and the cursor of the next
 * page (null: this was the last). One statement orders both sources, so a page boundary falls in the
 * same place whichever source its neighbours come from, and the count and the page agree.
 */
export async function readGatewayAccountPage(
  db: Queryable,
  config: AppConfig,
  query: { providers?: readonly ProviderName[]; after?: { provider: string; name: string }; limit: number },
): Promise<AccountPage> {
  const environment = new Map(
    environmentAccountViews(config)
      .filter((account) => !query.providers || query.providers.includes(account.provider))
      .map((account) => [`${account.provider}/${account.name}`, account]),
  );
  const fromEnvironment = [...environment.values()];
  // UNION drops a database row the environment shadows (the environment's wins, as everywhere).
  const { rows } = await db.query<{ total: number } & ({ sealed: null; provider: ProviderName; name: string } | StoredRow)>(
    `WITH listed AS (
       SELECT provider, name FROM gateway_accounts WHERE ($1::text[] IS NULL OR provider = ANY($1))
       UNION
       SELECT * FROM unnest($2::text[], $3::text[])
     ),
     page AS (
       SELECT provider, name FROM listed WHERE $4::text IS NULL OR (provider, name) > ($4, $5)
        ORDER BY provider, name LIMIT $6
     )
     SELECT (SELECT count(*) FROM listed)::int AS total, ${ROW_COLUMNS}
       FROM (VALUES (0)) AS one (x) LEFT JOIN (page LEFT JOIN gateway_accounts USING (provider, name)) ON true
      ORDER BY provider, name`,
    [
      query.providers ?? null,
      fromEnvironment.map((account) => account.provider),
      fromEnvironment.map((account) => account.name),
      query.after?.provider ?? null,
      query.after?.name ?? null,
      query.limit + 1,
    ],
  );
  const total = rows[0]!.total;
  const listed = rows.filter((row) => row.name !== null);
  const data = listed.slice(0, query.limit).map((row) => environment.get(`${row.provider}/${row.name}`) ?? viewOf(row as StoredRow));
  const last = data.at(-1);
  return { data, total, cursor: listed.length > query.limit && last ? encodeAccountCursor(last.provider, last.name) : null };
}

/**
 * Seals every account's secrets again under the newest ACCOUNT_SECRETS_KEY (after adding a key in
 * front): the older keys can then be dropped. Accounts no key opens are counted, left as they are.
 */
export async function resealGatewayAccounts(
  deps: AccountDeps,
  actor: Actor,
): Promise<{ resealed: number; current: number; unreadable: string[] }> {
  const keys = deps.config.gatewayAccounts.secretKeys;
  if (keys.length === 0) throw new AppError("NOT_CONFIGURED", "ACCOUNT_SECRETS_KEY is not set");
  const { rows } = await deps.pool.query<{ provider: string; name: string }>(
    `SELECT provider, name FROM gateway_accounts ORDER BY provider, name`,
  );
  const result = { resealed: 0, current: 0, unreadable: [] as string[] };
  // One transaction per account: a long run holds no lock on the others, and stops nowhere in the middle of one.
  for (const { provider, name } of rows) {
    await withTransaction(deps.pool, async (client) => {
      const row = await lockRow(client, provider, name);
      if (!row) return;
      const material = openMaterial(keys, row.sealed);
      if (!material) {
        result.unreadable.push(`${provider}/${name}`);
        return;
      }
      if (material.keyIndex === 0) {
        result.current++;
        return;
      }
      await client.query(
        `UPDATE gateway_accounts SET sealed = $3, version = nextval('gateway_accounts_version_seq') WHERE provider = $1 AND name = $2`,
        [provider, name, sealed(deps.config, material.material)],
      );
      await notify(client, provider, name);
      result.resealed++;
    });
  }
  await recordAudit(deps.pool, { actor: actor.name, ip: actor.ip, action: "gateway_accounts_resealed", details: { ...result } });
  return result;
}
