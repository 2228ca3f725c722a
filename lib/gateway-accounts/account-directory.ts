import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import type { AppConfig } from "../config/env";
import { listenOnChannel, type ChannelListener } from "../db/listen";
import type { Pool } from "../db/pool";
import { logger } from "../observability/logger";
import { isProviderName, type ProviderName } from "../providers/registry";
import { defaultAccount, environmentAccounts, type GatewayAccount } from "./gateway-account";
import { openMaterial } from "./sealed-account";

// Every process keeps every gateway account in memory, secrets opened once: a delivery's account is
// a map lookup, whatever the number of accounts. A change to the table sends a notification on
// ACCOUNTS_CHANNEL in its transaction; each process listens and reads that one account again. A
// notification missed (the listening connection was down, PgBouncer in transaction pooling can't
// listen) is caught by a periodic check: the table's (max(version), count(*)) pair changes with
// every insert, update and delete (versions come from a sequence), and only then are the rows
// whose version differs read again.

/** The channel every change to `gateway_accounts` is notified on, with `{"provider", "name"}`. */
export const ACCOUNTS_CHANNEL = "gateway_accounts";

// Behind transaction pooling no notification arrives: the check is all there is, so it runs often.
const POLL_WITHOUT_NOTIFICATIONS_MS = 2_000;

export type AccountDirectory = {
  /** Resolves once the database's accounts are cached (the first load; a failed one is tried again by the next call). */
  ready(): Promise<void>;
  /** The account of that name (`default`: the gateway's own variables), or undefined. */
  find(provider: ProviderName, name: string): GatewayAccount | undefined;
  /** The account that stands for a gateway's own account id, as an event's body names it (the driver's accountOf). */
  forGatewayId(provider: ProviderName, id: string): GatewayAccount | undefined;
  /** The gateway's accounts: the default first, then the environment's and the database's by name. */
  list(provider: ProviderName): GatewayAccount[];
  /** Reads one account again now (the process that changed it needn't wait for its notification). */
  refresh(provider: string, name: string): Promise<void>;
  /** How many of the database's accounts this process holds. */
  databaseCount(): number;
  close(): Promise<void>;
};

type Row = { provider: string; name: string; enabled: boolean; gatewayAccountId: string | null; sealed: string; version: number };

const SELECT_ROWS = `SELECT provider, name, enabled, gateway_account_id AS "gatewayAccountId", sealed, version FROM gateway_accounts`;

const keyOf = (provider: string, name: string) => `${provider}\u0000${name}`;

/** An index of accounts by name and by the gateway id each stands for. */
class AccountIndex {
  readonly byName = new Map<string, GatewayAccount>();
  readonly byGatewayId = new Map<string, GatewayAccount>();

  put(account: GatewayAccount): void {
    this.remove(account.provider, account.name);
    this.byName.set(keyOf(account.provider, account.name), account);
    if (account.gatewayAccountId !== null) this.byGatewayId.set(keyOf(account.provider, account.gatewayAccountId), account);
  }

  remove(provider: string, name: string): void {
    const old = this.byName.get(keyOf(provider, name));
    if (!old) return;
    this.byName.delete(keyOf(provider, name));
    const byId = old.gatewayAccountId === null ? undefined : keyOf(provider, old.gatewayAccountId);
    if (byId !== undefined && this.byGatewayId.get(byId) === old) this.byGatewayId.delete(byId);
  }
}

/** The account a row makes, its secrets opened with the configured keys. */
function accountOf(config: AppConfig, row: Row & { provider: ProviderName }): GatewayAccount {
  const opened = openMaterial(config.gatewayAccounts.secretKeys, row.sealed);
  const account: GatewayAccount = {
    provider: row.provider,
    name: row.name,
    source: "database",
    enabled: row.enabled,
    secrets: opened?.material.secrets ?? [],
    credentials: opened?.material.credentials ?? {},
    gatewayAccountId: row.gatewayAccountId ?? row.name,
  };
  return opened ? account : { ...account, unreadable: "no key in ACCOUNT_SECRETS_KEY opens its secrets" };
}

function directoryOver(config: AppConfig, fixed: AccountIndex, database: AccountIndex, extra: Partial<AccountDirectory>): AccountDirectory {
  const defaults = new Map<ProviderName, GatewayAccount>();
  const defaultOf = (provider: ProviderName) => {
    let account = defaults.get(provider);
    if (!account) defaults.set(provider, (account = defaultAccount(config, provider)));
    return account;
  };
  return {
    ready: async () => undefined,
    refresh: async () => undefined,
    close: async () => undefined,
    databaseCount: () => 0,
    ...extra,
    find: (provider, name) =>
      name === DEFAULT_ACCOUNT
        ? defaultOf(provider)
        : (fixed.byName.get(keyOf(provider, name)) ?? database.byName.get(keyOf(provider, name))),
    forGatewayId: (provider, id) => fixed.byGatewayId.get(keyOf(provider, id)) ?? database.byGatewayId.get(keyOf(provider, id)),
    list: (provider) => {
      const named = [...fixed.byName.values(), ...database.byName.values()]
        .filter(
          (account) =>
            account.provider === provider && (account.source === "environment" || !fixed.byName.has(keyOf(provider, account.name))),
        )
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return [defaultOf(provider), ...named];
    },
  };
}

function environmentIndex(config: AppConfig): AccountIndex {
  const index = new AccountIndex();
  for (const account of environmentAccounts(config)) index.put(account);
  return index;
}

const configOnly = new WeakMap<AppConfig, AccountDirectory>();

/**
 * The accounts the configuration alone defines (the default and `<PROVIDER>_ACCOUNTS`), for work
 * given no directory of the database's (tests, benchmarks, a one-off tool).
 */
export function configAccounts(config: AppConfig): AccountDirectory {
  let directory = configOnly.get(config);
  if (!directory) configOnly.set(config, (directory = directoryOver(config, environmentIndex(config), new AccountIndex(), {})));
  return directory;
}

/**
 * The process's directory of accounts: the configuration's and the database's, the latter loaded
 * now and kept current (notifications, and the periodic check) until closed. `watch: false` (a CLI
 * command) loads once and listens to nothing.
 */
export function startAccountDirectory(
  config: AppConfig,
  pool: Pool,
  options: { databaseUrl: string; applicationName: string; watch?: boolean },
): AccountDirectory {
  const watch = options.watch ?? true;
  const log = logger("gateway-accounts");
  const fixed = environmentIndex(config);
  const database = new AccountIndex();
  const versions = new Map<string, number>();
  let summary = "";
  let closed = false;

  // One change at a time: a slow read finishing after a newer one must not put an old state back.
  let queue: Promise<void> = Promise.resolve();
  const serially = (work: () => Promise<void>): Promise<void> => {
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    return run;
  };

  const apply = (rows: Row[]) => {
    for (const row of rows) {
      if (!isProviderName(row.provider)) continue;
      const key = keyOf(row.provider, row.name);
      if (versions.get(key) === row.version) continue;
      const account = accountOf(config, { ...row, provider: row.provider });
      if (account.unreadable)
        log.error({ provider: row.provider, account: row.name }, "account secrets unreadable: no ACCOUNT_SECRETS_KEY opens them");
      database.put(account);
      versions.set(key, row.version);
    }
  };
  const drop = (provider: string, name: string) => {
    database.remove(provider, name);
    versions.delete(keyOf(provider, name));
  };

  /** Reads what changed since the cache was last in step with the table, if anything did. */
  const catchUp = () =>
    serially(async () => {
      const { rows } = await pool.query<{ v: number; n: number }>(
        `SELECT COALESCE(max(version), 0)::bigint AS v, count(*)::int AS n FROM gateway_accounts`,
      );
      const now = `${rows[0]!.v}/${rows[0]!.n}`;
      if (now === summary) return;
      const started = performance.now();
      const current = await pool.query<{ provider: string; name: string; version: number }>(
        `SELECT provider, name, version FROM gateway_accounts`,
      );
      const present = new Set(current.rows.map((row) => keyOf(row.provider, row.name)));
      for (const key of [...versions.keys()]) {
        if (present.has(key)) continue;
        const [provider, name] = key.split("\u0000") as [string, string];
        drop(provider, name);
      }
      const stale = current.rows.filter((row) => versions.get(keyOf(row.provider, row.name)) !== row.version);
      if (stale.length > 0) {
        const changed = await pool.query<Row>(`${SELECT_ROWS} WHERE (provider, name) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, [
          stale.map((row) => row.provider),
          stale.map((row) => row.name),
        ]);
        apply(changed.rows);
      }
      summary = now;
      log.info({ accounts: versions.size, read: stale.length, ms: Math.round(performance.now() - started) }, "gateway accounts loaded");
    });

  const refresh = (provider: string, name: string) =>
    serially(async () => {
      const { rows } = await pool.query<Row>(`${SELECT_ROWS} WHERE provider = $1 AND name = $2`, [provider, name]);
      if (rows.length === 0) drop(provider, name);
      else apply(rows);
    });

  let loaded: Promise<void> | undefined;
  const ready = () => {
    loaded ??= catchUp().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
  const checkFailed = (error: unknown) =>
    log.warn({ error: error instanceof Error ? error.message : String(error) }, "accounts check failed");

  const listens = watch && config.databasePooler !== "transaction";
  const listener: ChannelListener | null = listens
    ? listenOnChannel(options.databaseUrl, options.applicationName, config.databaseTimeouts, ACCOUNTS_CHANNEL, {
        onNotify: (payload) => {
          let changed: { provider?: unknown; name?: unknown };
          try {
            changed = JSON.parse(payload) as typeof changed;
          } catch {
            changed = {};
          }
          const done =
            typeof changed.provider === "string" && typeof changed.name === "string" ? refresh(changed.provider, changed.name) : catchUp();
          done.catch(checkFailed);
        },
        // Whatever was notified while it was away is lost: the table says what changed.
        onConnect: () => {
          catchUp().catch(checkFailed);
        },
      })
    : null;
  const timer = setInterval(
    () => {
      if (!closed) catchUp().catch(checkFailed);
    },
    listens
      ? config.gatewayAccounts.reloadSeconds * 1000
      : Math.min(POLL_WITHOUT_NOTIFICATIONS_MS, config.gatewayAccounts.reloadSeconds * 1000),
  );
  timer.unref();
  ready().catch(checkFailed);

  return directoryOver(config, fixed, database, {
    ready,
    refresh: (provider, name) => refresh(provider, name),
    databaseCount: () => versions.size,
    close: async () => {
      closed = true;
      clearInterval(timer);
      await listener?.close();
      await queue;
    },
  });
}
