import { parseArgs } from "node:util";
import { appConfig } from "@/lib/config/env";
import { loadEnvFiles } from "@/lib/config/env-files";
import {
  checkFinalStates,
  sendAll,
  historiesAsSent,
  httpSender,
  planWebhooks,
  stripeEventsOf,
  withholdWebhooks,
  type PaymentReading,
  type SendReport,
} from "./send-webhooks";
import { findDriver, PROVIDER_NAMES, type ProviderName } from "@/lib/providers/registry";
import { DEFAULT_ACCOUNT, isAccountName } from "@/lib/canonical/gateway-account";
import { createPool } from "@/lib/db/pool";
import { configAccounts, startAccountDirectory } from "@/lib/gateway-accounts/account-directory";
import { defaultAccount, hasOwnCredentials, type GatewayAccount } from "@/lib/gateway-accounts/gateway-account";
import { startFakeGateway, type FakeGateway, type GatewayCredentials } from "./fake-gateway";
import {
  webhookFor,
  isSimulatedProvider,
  SIMULATED_PROVIDERS,
  type SigningSecret,
  type SimulatedProvider,
} from "@/lib/testing/gateway-events";
import { generateHistories, type PaymentHistory } from "./history";
import { startHostReceiver, type HostReceiver } from "./host-receiver";
import { plural } from "@/lib/text/words";
import { refusalHint, type RunSettings } from "./refusal-hint";

// `npm run simulate -- run|serve [options]`: a gateway simulator for any deployment. It generates
// per-payment event histories, signs them the way each gateway does (Stripe, Standard Webhooks,
// Asaas, Pagar.me RS256, Mercado Pago, Zoop), sends them with duplicates, shuffling, delays and
// concurrency, serves a fake of each gateway's API with the true state (for refetch, checking the
// credentials it receives), waits for the app to drain and checks every payment against the truth.

const USAGE = `usage: npm run simulate -- <run|serve> [options]

  run                       send, wait for the app to drain, check final states
  serve                     only serve the fake gateway API for the same histories

  --url URL                 the app (default http://localhost:PORT, PORT as npm run dev reads it: 3000)
  --app-wait S              seconds to wait for the app to answer before sending (default 120)
  --payments N              payments to simulate (default 100)
  --provider P              simulate one gateway: ${SIMULATED_PROVIDERS.join("|")}
  --account NAME            play that account of each gateway: post to /api/webhooks/{provider}/NAME, signed
                            with its secret, and serve its payments to its own API credentials. An account
                            the environment names (<PROVIDER>_ACCOUNTS, WEBHOOK_SECRET_<PROVIDER>_<NAME>), or
                            one kept in the database (with DATABASE_URL and ACCOUNT_SECRETS_KEY set)
  --providers LIST          several of them, comma-separated (default stripe,standard)
  --duplicates RATE         probability of each extra resend, 0..1 (default 0.3)
  --drop RATE               withhold each event (all its copies) with this probability, 0..1 (default 0):
                            a gateway that stopped sending; the fake gateway still lists them, so
                            \`npm run cli -- reconcile --provider P\` finds them (see --await-reconcile)
  --await-reconcile S       after the check, keep serving the fake gateway and check again until every
                            payment is in its true state (run the reconciliation meanwhile), at most S seconds
  --shuffle MODE            none | payment | full (default full)
  --concurrency N           webhooks in flight (default 16)
  --max-delay-ms N          random delay before each webhook (default 0)
  --seed N                  reproducible histories (default: random)
  --gateway-port N          fake gateway port (default 4010, 0 = off); point the app's API URLs at it:
                              STRIPE_API_URL=http://127.0.0.1:N  STANDARD_API_URL=http://127.0.0.1:N
                              ASAAS_API_URL=http://127.0.0.1:N/v3  PAGARME_API_URL=http://127.0.0.1:N/core/v5
                              MERCADOPAGO_API_URL=http://127.0.0.1:N  ZOOP_API_URL=http://127.0.0.1:N/v1
                              PAGARME_JWKS_URL=http://127.0.0.1:N/.well-known/jwks.json
                            it accepts the app's own <PROVIDER>_API_KEY / ZOOP_MARKETPLACE_ID
  --token T                 API token for registering payments and the final check (default: first of PAYMENTS_API_TOKENS)
                            Gateways whose PAYMENT_SOURCE_<PROVIDER> is host (the default but for stripe and standard):
                            the simulator plays the host application and registers each payment first (POST /api/payments)
  --no-check                skip waiting and checking
  --drain-timeout S         seconds to wait for the app to drain (default 900)
  --unknown N               also send N Stripe disputes on charges the fake gateway learns only after
                            the drain: their refetch fails, so they end failed, ready to replay
  --hold                    keep serving the fake gateway after the check, until Ctrl-C

  Playing the host application (destinations):
  --host-port N             a receiver on N that verifies every push with DESTINATION_SECRET (standardwebhooks),
                            dedupes on webhook-id and keeps each payment's last version; set the app's
                            DESTINATION_URL=http://127.0.0.1:N/webhooks. The check then also compares the
                            host's final view with the true states (default 0 = off)
  --host-fail RATE          share of pushes the host answers 500 (default 0)
  --host-hang RATE          share of pushes the host never answers (the sender times out) (default 0)
  --host-outage S           the host is down for S seconds once half the webhooks are sent (default 0)
  --host-wait S             seconds to wait for the host to converge (default 300)`;

type Options = ReturnType<typeof parse>;

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: "string", default: `http://localhost:${appConfig().port}` },
      "app-wait": { type: "string", default: "120" },
      payments: { type: "string", default: "100" },
      provider: { type: "string" },
      account: { type: "string" },
      providers: { type: "string", default: "stripe,standard" },
      duplicates: { type: "string", default: "0.3" },
      drop: { type: "string", default: "0" },
      "await-reconcile": { type: "string", default: "0" },
      shuffle: { type: "string", default: "full" },
      concurrency: { type: "string", default: "16" },
      "max-delay-ms": { type: "string", default: "0" },
      seed: { type: "string" },
      "gateway-port": { type: "string", default: "4010" },
      token: { type: "string" },
      "no-check": { type: "boolean", default: false },
      "drain-timeout": { type: "string", default: "900" },
      unknown: { type: "string", default: "0" },
      hold: { type: "boolean", default: false },
      "host-port": { type: "string", default: "0" },
      "host-fail": { type: "string", default: "0" },
      "host-hang": { type: "string", default: "0" },
      "host-outage": { type: "string", default: "0" },
      "host-wait": { type: "string", default: "300" },
      help: { type: "boolean", default: false },
    },
  });
  const providers = (values.provider ?? values.providers).split(",").map((name) => name.trim());
  if (!providers.every(isSimulatedProvider)) {
    throw new Error(`--provider: one of ${SIMULATED_PROVIDERS.join(", ")}`);
  }
  if (values.account !== undefined && (!isAccountName(values.account) || values.account === DEFAULT_ACCOUNT))
    throw new Error("--account: an account's name (letters, digits, _ . -), not default (leave it out for the gateway's own URL)");
  const shuffle = values.shuffle;
  if (shuffle !== "none" && shuffle !== "payment" && shuffle !== "full") throw new Error("--shuffle: none, payment or full");
  const number = (name: keyof typeof values, min: number, max = Number.MAX_SAFE_INTEGER) => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < min || value > max) throw new Error(`--${name} must be a number in [${min}, ${max}]`);
    return value;
  };
  return {
    command: values.help ? undefined : positionals[0],
    url: values.url.replace(/\/+$/, ""),
    appWaitMs: number("app-wait", 0) * 1000,
    payments: number("payments", 1),
    providers: providers as SimulatedProvider[],
    account: values.account,
    duplicates: number("duplicates", 0, 0.95),
    drop: number("drop", 0, 0.95),
    awaitReconcileMs: number("await-reconcile", 0) * 1000,
    shuffle: shuffle as "none" | "payment" | "full",
    concurrency: number("concurrency", 1, 1024),
    maxDelayMs: number("max-delay-ms", 0),
    seed: values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : number("seed", 0),
    gatewayPort: number("gateway-port", 0, 65535),
    token: values.token,
    check: !values["no-check"],
    drainTimeoutMs: number("drain-timeout", 1) * 1000,
    unknown: number("unknown", 0, 1000),
    hold: values.hold,
    host: {
      port: number("host-port", 0, 65535),
      failShare: number("host-fail", 0, 0.95),
      hangShare: number("host-hang", 0, 0.95),
      outageMs: number("host-outage", 0) * 1000,
      waitMs: number("host-wait", 1) * 1000,
    },
  };
}

/**
 * The accounts played (--account), by gateway: from the environment, else (with DATABASE_URL and
 * ACCOUNT_SECRETS_KEY) the database; none without --account (the gateway's own URL and secret).
 */
async function playedAccounts(providers: SimulatedProvider[], name: string | undefined): Promise<Map<ProviderName, GatewayAccount>> {
  const played = new Map<ProviderName, GatewayAccount>();
  if (name === undefined) return played;
  const config = appConfig();
  const fromDatabase = async () => {
    if (!config.databaseUrl || config.gatewayAccounts.secretKeys.length === 0) return configAccounts(config);
    const pool = createPool(config.databaseUrl, 1, "simulator");
    const directory = startAccountDirectory(config, pool, { databaseUrl: config.databaseUrl, applicationName: "simulator", watch: false });
    try {
      await directory.ready();
      return directory;
    } finally {
      await directory.close();
      await pool.end();
    }
  };
  const accounts = providers.some((provider) => !configAccounts(config).find(provider, name))
    ? await fromDatabase()
    : configAccounts(config);
  for (const provider of providers) {
    const account = accounts.find(provider, name);
    if (!account)
      throw new Error(
        `--account ${name}: no ${provider} account of that name in the simulator's environment (${provider.toUpperCase()}_ACCOUNTS)` +
          (config.databaseUrl ? " or database" : ", and no DATABASE_URL to look in the database"),
      );
    played.set(provider, account);
  }
  return played;
}

/** Where the played account's payments live at the fake gateway: read with its own credentials, as a connected account, or the default's. */
function placeInAccount(gateway: FakeGateway, played: Map<ProviderName, GatewayAccount>, histories: PaymentHistory[]): void {
  for (const [provider, account] of played) {
    const own = histories.filter((history) => history.provider === provider);
    const driver = findDriver(provider)!;
    if (hasOwnCredentials(account, driver.apiAuth?.uses ?? [])) gateway.addAccount(account.credentials, own);
    else if (driver.readsOtherAccounts) gateway.addConnected(account.gatewayAccountId ?? account.name, own);
  }
}

/** What each simulated gateway signs with: the app's own secret (the played account's), or (Pagar.me) the fake gateway's key. */
function signingSecrets(
  providers: SimulatedProvider[],
  gateway: FakeGateway | null,
  played: Map<ProviderName, GatewayAccount> = new Map(),
): Partial<Record<SimulatedProvider, SigningSecret>> {
  const config = appConfig();
  return Object.fromEntries(
    providers.map((name) => {
      if (name === "pagarme") {
        if (!gateway) throw new Error("Pagar.me webhooks are signed with the fake gateway's key: keep --gateway-port on");
        return [name, gateway.pagarmeKey];
      }
      const account = played.get(name);
      const secret = account ? account.secrets[0] : config.providers[name].secrets[0];
      if (!secret)
        throw new Error(
          account
            ? `${name} account "${account.name}" has no webhook secret: the simulator signs with it`
            : `WEBHOOK_SECRET_${name.toUpperCase()} is not set: the simulator signs with the app's secret`,
        );
      return [name, secret];
    }),
  );
}

/** The fake gateway accepts the API credentials the app is configured with. */
function appCredentials(): GatewayCredentials {
  const { providers } = appConfig();
  return Object.fromEntries(PROVIDER_NAMES.map((name) => [name, providers[name].credentials])) as GatewayCredentials;
}

// The backlog is a health detail: read with the app's first HEALTH_TOKENS token.
async function health(url: string): Promise<{ pending: number; failed?: number } | null> {
  const token = appConfig().healthTokens[0];
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const response = await fetch(`${url}/api/health`, { headers }).catch(() => null);
  if (!response) return null;
  const body = (await response.json().catch(() => null)) as { inbox?: { pending: number; failed?: number } } | null;
  return body?.inbox ?? null;
}

async function waitForDrain(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const inbox = await health(url);
    if (inbox && inbox.pending === 0) return true;
    await new Promise((done) => setTimeout(done, 250));
  }
  return false;
}

function reader(url: string, token: string) {
  return async (history: PaymentHistory): Promise<PaymentReading> => {
    const response = await fetch(`${url}/api/payments/${history.provider}/${encodeURIComponent(history.payment.chargeId)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`GET payment answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { status: string; amountRefunded: number };
    return { status: body.status, amountRefunded: body.amountRefunded };
  };
}

/** Checks again (once a second) until every payment is in its true state or the time is up. */
async function awaitTruth(histories: PaymentHistory[], read: (history: PaymentHistory) => Promise<PaymentReading>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const check = await checkFinalStates(histories, read);
    if (check.mismatches.length === 0 || Date.now() > deadline) return check;
    await new Promise((done) => setTimeout(done, 1000));
  }
}

/** Disputes on charges the fake gateway doesn't know yet: their refetch gets 404 until it learns them. */
function unknownDisputes(seed: number, count: number): PaymentHistory[] {
  return Array.from({ length: count }, (_, index) => ({
    provider: "stripe" as const,
    payment: {
      chargeId: `ch_unknown_${seed}_${index}`,
      amount: 5000,
      currency: "usd",
      customerId: "cus_unknown",
      customerEmail: "late.gateway@example.com",
    },
    steps: [{ kind: "dispute_opened" as const, amountRefunded: 0, occurredAtMs: Date.now() - 60_000 }],
    truth: { status: "disputed" as const, amountRefunded: 0 },
  }));
}

/** The host's view against the truth: each payment's last pushed version in its true final state. */
function hostMismatches(histories: PaymentHistory[], host: HostReceiver): string[] {
  return histories.flatMap((history) => {
    const last = host.lastVersion.get(`${history.provider}/${history.payment.chargeId}`);
    const matches = last && last.status === history.truth.status && last.amountRefunded === history.truth.amountRefunded;
    return matches
      ? []
      : [`${history.payment.chargeId}: true ${history.truth.status}, host has ${last ? `${last.status} (v${last.version})` : "nothing"}`];
  });
}

/** Waits for the host to hold every payment's true final state; reports what it saw. */
async function checkHost(histories: PaymentHistory[], host: HostReceiver, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (hostMismatches(histories, host).length > 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 250));
  const mismatches = hostMismatches(histories, host);
  console.log(
    `host: ${plural(host.received.length, "verified push", "verified pushes")}, ${host.applied.length} applied after dedupe on webhook-id, ${host.rejected} rejected, ` +
      `${host.outOfOrder.length} out of order; ${histories.length - mismatches.length}/${histories.length} payments in their true final state`,
  );
  for (const line of [...host.outOfOrder, ...mismatches].slice(0, 20)) console.log(`  ${line}`);
  return mismatches.length === 0 && host.outOfOrder.length === 0 && host.rejected === 0;
}

/** The receiver that plays the host, if asked for, with its outage scheduled at half the webhooks. */
async function startHost(options: Options, total: number): Promise<{ host: HostReceiver; onSent: (sent: number) => void } | null> {
  if (!options.host.port) return null;
  const secret = appConfig().destinations.configured?.secret;
  if (!secret) throw new Error("--host-port verifies with DESTINATION_SECRET: set it (and DESTINATION_URL) for the app and the simulator");
  const host = await listening(options.host.port, "pick another with --host-port N and set the app's DESTINATION_URL to match", () =>
    startHostReceiver(secret, { failShare: options.host.failShare, hangShare: options.host.hangShare }, options.host.port),
  );
  console.log(
    `host receiver on ${host.url} (fail ${options.host.failShare}, hang ${options.host.hangShare}, outage ${options.host.outageMs / 1000}s)`,
  );
  let outage = options.host.outageMs > 0;
  return {
    host,
    onSent: (sent) => {
      if (!outage || sent < total / 2) return;
      outage = false;
      host.set({ down: true });
      console.log(`host down for ${options.host.outageMs / 1000}s`);
      setTimeout(() => host.set({ down: false }), options.host.outageMs).unref();
    },
  };
}

/** Starts a server on `port`, or says in one sentence that the port is busy and how to pick another. */
async function listening<T>(port: number, pickAnother: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    throw new Error(`port ${port} is busy (another simulator still serving, one run with --hold or serve?): stop it, or ${pickAnother}`);
  }
}

const startGateway = (histories: PaymentHistory[], port: number) =>
  listening(port, "pick another with --gateway-port N and point the app's API URLs and PAGARME_JWKS_URL at it (see --help)", () =>
    startFakeGateway(histories, port, appCredentials()),
  );

/** Waits for the app to answer at all (a just started `npm run dev`), at most `timeoutMs`. */
async function waitForApp(url: string, timeoutMs: number): Promise<void> {
  const answers = () =>
    fetch(`${url}/api/health`).then(
      () => true,
      () => false,
    );
  if (await answers()) return;
  console.log(`waiting up to ${timeoutMs / 1000}s for the app at ${url} (npm run dev; --url if it is elsewhere)`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 500));
    if (await answers()) return;
  }
  throw new Error(`nothing answers at ${url}: start the app (npm run dev), or point --url at it`);
}

/**
 * Plays the host application for gateways whose payments it registers (PAYMENT_SOURCE_<PROVIDER>=host):
 * each payment is registered (POST /api/payments) before its gateway's first webhook, as a shop
 * records the payment it creates. Without it their events would wait for payments nobody registers.
 */
async function registerAsHost(url: string, token: string | undefined, histories: PaymentHistory[], concurrency: number): Promise<void> {
  const { providers } = appConfig();
  const hosted = histories.filter((history) => providers[history.provider].paymentSource === "host");
  if (hosted.length === 0) return;
  const names = [...new Set(hosted.map((history) => history.provider))];
  const variables = names.map((name) => `PAYMENT_SOURCE_${name.toUpperCase()}=host`).join(", ");
  if (!token)
    throw new Error(`${variables}: the simulator registers the payments as the host would, with a PAYMENTS_API_TOKENS token or --token`);
  const refused = new Map<string, number>();
  let next = 0;
  async function registrar() {
    for (let history = hosted[next++]; history; history = hosted[next++]) {
      const { payment, provider } = history;
      const response = await fetch(`${url}/api/payments`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          provider,
          chargeId: payment.chargeId,
          amount: payment.amount,
          currency: payment.currency,
          customer: { id: payment.customerId, email: payment.customerEmail },
        }),
      });
      const answer = `${response.status} ${(await response.text()).slice(0, 300)}`;
      if (!response.ok) refused.set(answer, (refused.get(answer) ?? 0) + 1);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, 16) }, registrar));
  if (refused.size > 0) {
    const reasons = [...refused].map(([reason, count]) => `${count} answered ${reason}`).join("; ");
    throw new Error(
      `registering payments as the host application (${variables}) failed: ${reasons}. ` +
        `Is the first of the simulator's PAYMENTS_API_TOKENS (or --token) one of the app's?`,
    );
  }
  console.log(`registered ${plural(hosted.length, "payment")} as the host application would (${variables}): POST /api/payments`);
}

/** One line per kind of refusal: how many, the app's answer and what to check. */
function refusalLines(report: SendReport, run: RunSettings): string[] {
  return report.refusals.map((refusal) => {
    const count =
      refusal.gaveUp > 0
        ? `${refusal.gaveUp} refused (given up after every try)`
        : `${plural(refusal.answers, "answer")} refused, accepted on a later try`;
    const hint = refusalHint(refusal, run);
    return `  ${count}: ${refusal.provider} ${refusal.status} ${refusal.error}${hint ? ` — ${hint}` : ""}`;
  });
}

async function run(options: Options): Promise<number> {
  const histories = generateHistories(options.seed, options.payments, options.providers);
  const unknown = unknownDisputes(options.seed, options.unknown);
  await waitForApp(options.url, options.appWaitMs);
  const token = options.token ?? appConfig().paymentsApiTokens[0]?.token;
  const played = await playedAccounts(options.providers, options.account);
  const gateway = options.gatewayPort ? await startGateway(histories, options.gatewayPort) : null;
  if (gateway) console.log(`fake gateway API on ${gateway.url} (refetch must authenticate with the app's <PROVIDER>_API_KEY)`);
  if (gateway) placeInAccount(gateway, played, histories);
  if (options.account)
    console.log(`playing account ${options.account}: posting to /api/webhooks/{provider}/${options.account}, signed with its secret`);
  let playedHost: Awaited<ReturnType<typeof startHost>> = null;
  try {
    const secrets = signingSecrets(options.providers, gateway, played);
    const planned = planWebhooks(histories, { secrets, duplicateRate: options.duplicates, shuffle: options.shuffle, seed: options.seed });
    // The gateway's events list knows every event, sent or not.
    gateway?.addEvents(stripeEventsOf(planned));
    const { toSend, withheld } = withholdWebhooks(planned, options.drop, options.seed);
    if (withheld.length > 0) {
      console.log(`withholding ${plural(withheld.length, "event")} (--drop ${options.drop}): the gateway lists them, never sends them`);
      // While they were due, its API showed each payment as of the last step it told us about.
      gateway?.add(historiesAsSent(histories, toSend));
    }
    const plan = [
      ...toSend,
      ...unknown.map((history) => ({
        ...webhookFor("stripe", history.payment, history.steps[0]!, secrets.stripe ?? signingSecrets(["stripe"], gateway, played).stripe!),
        chargeId: history.payment.chargeId,
        step: 0,
      })),
    ];
    const events = new Set(plan.map((webhook) => webhook.eventId)).size;
    console.log(
      `seed ${options.seed}: ${plural(histories.length, "payment")}, ${plural(events, "event")}, ${plural(plan.length, "webhook")} ` +
        `(${plural(plan.length - events, "duplicate")}), shuffle ${options.shuffle}, concurrency ${options.concurrency}`,
    );
    await registerAsHost(options.url, token, [...histories, ...unknown], options.concurrency);
    playedHost = await startHost(options, plan.length);
    const started = Date.now();
    const send = httpSender(options.url, options.account);
    let sent = 0;
    const report = await sendAll(
      plan,
      async (webhook) => {
        playedHost?.onSent(++sent);
        return send(webhook);
      },
      {
        concurrency: options.concurrency,
        maxDelayMs: options.maxDelayMs,
        secrets,
      },
    );
    const rate = (report.acknowledged / (report.ms / 1000)).toFixed(0);
    console.log(
      `sent: ${report.acknowledged} acknowledged, ${report.retries} retried, ${report.failed} gave up, in ${report.ms} ms (${rate} webhooks/s)`,
    );
    const signedAs = (provider: ProviderName) => played.get(provider) ?? defaultAccount(appConfig(), provider);
    for (const line of refusalLines(report, { url: options.url, gatewayUrl: gateway?.url ?? null, signedAs })) console.log(line);
    if (!options.check) return report.failed === 0 ? 0 : 1;

    const drained = await waitForDrain(options.url, options.drainTimeoutMs);
    const drainMs = Date.now() - started;
    // Since then the payments moved on at the gateway, as the withheld notices would have said.
    gateway?.add(histories);
    if (gateway) {
      const refused = gateway.requests.filter((request) => !request.authorized && !request.path.startsWith("/.well-known/")).length;
      console.log(`fake gateway: ${plural(gateway.requests.length, "API request")}, ${refused} refused for bad credentials`);
    }
    if (!drained) {
      console.error(
        `the app did not drain within ${options.drainTimeoutMs / 1000}s (events of payments nobody registered wait: ` +
          `the simulator registers them when it sees the app's PAYMENT_SOURCE_<PROVIDER>=host)`,
      );
      return 1;
    }
    console.log(
      `drained: no pending events ${drainMs} ms after the first webhook (${(events / (drainMs / 1000)).toFixed(0)} events/s end to end)`,
    );
    console.log(`failed events in the app (all providers, all runs): ${(await health(options.url))?.failed ?? "unknown"}`);
    if (!token) throw new Error("no API token for the check: pass --token or set PAYMENTS_API_TOKENS");
    const check = await checkFinalStates(histories, reader(options.url, token));
    console.log(`check: ${check.matched}/${check.payments} payments in their true final state`);
    for (const mismatch of check.mismatches.slice(0, 20)) {
      console.log(`  ${mismatch.chargeId}: expected ${mismatch.expected}, app has ${mismatch.actual}`);
    }
    if (check.mismatches.length > 0 && options.awaitReconcileMs > 0) {
      const providers = [...new Set(options.providers)].join(", ");
      console.log(
        `waiting up to ${options.awaitReconcileMs / 1000}s for reconciliation (npm run cli -- reconcile --provider P, for ${providers})`,
      );
      const after = await awaitTruth(histories, reader(options.url, token), options.awaitReconcileMs);
      console.log(`after reconciliation: ${after.matched}/${after.payments} payments in their true final state`);
      if (after.mismatches.length > 0) return 1;
      console.log(`failed events in the app (all providers, all runs): ${(await health(options.url))?.failed ?? "unknown"}`);
      return report.failed === 0 ? 0 : 1;
    }
    if (unknown.length > 0 && gateway) {
      gateway.add(unknown);
      placeInAccount(gateway, played, unknown);
      console.log(
        `${plural(unknown.length, "dispute")} on charges the gateway didn't know failed (${unknown.map((history) => history.payment.chargeId).join(", ")}). ` +
          `The fake gateway knows them now: replay them (console: Events, status failed; or npm run cli -- replay --status failed).`,
      );
    }
    if (options.hold && gateway) {
      console.log(`serving the fake gateway on ${gateway.url} until Ctrl-C`);
      await new Promise<void>((done) => process.once("SIGINT", done));
    }
    const hostConverged = playedHost ? await checkHost(histories, playedHost.host, options.host.waitMs) : true;
    return check.mismatches.length === 0 && report.failed === 0 && hostConverged ? 0 : 1;
  } finally {
    await gateway?.close();
    await playedHost?.host.close();
  }
}

async function serve(options: Options): Promise<number> {
  const histories = generateHistories(options.seed, options.payments, options.providers);
  const played = await playedAccounts(options.providers, options.account);
  const gateway = await startGateway(histories, options.gatewayPort || 4010);
  placeInAccount(gateway, played, histories);
  if (options.account) console.log(`playing account ${options.account}: its payments are served as that account's (see --account)`);
  console.log(`fake gateway API for seed ${options.seed} (${plural(histories.length, "payment")}) on ${gateway.url}; Ctrl-C stops it`);
  await new Promise<void>((done) => process.once("SIGINT", done));
  await gateway.close();
  return 0;
}

async function main(argv: string[]): Promise<number> {
  loadEnvFiles({ developmentDefaults: true });
  const options = parse(argv);
  if (options.command === "run") return run(options);
  if (options.command === "serve") return serve(options);
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
