import { text } from "node:stream/consumers";
import { z } from "zod";
import {
  environmentAccountViews,
  listGatewayAccountViews,
  putGatewayAccount,
  removeGatewayAccount,
  resealGatewayAccounts,
  rotateGatewayAccount,
  setGatewayAccountEnabled,
  type GatewayAccountView,
} from "../../gateway-accounts/manage-gateway-accounts";
import { PROVIDER_NAMES, type ProviderName } from "../../providers/registry";
import type { CliRuntime } from "../cli-runtime";
import { cliActor, command, flag, option } from "./cli-command";
import { plural } from "../../text/words";

// The gateway accounts kept in the database (lib/gateway-accounts): the same changes the console and
// the host API make, audited as the CLI user. A secret given as `-` is read from standard input, so
// it stays out of the shell's history and the process list.

const accountOptions = {
  provider: option(z.enum(PROVIDER_NAMES, { error: `give --provider P (${PROVIDER_NAMES.join(", ")})` }), { arg: "P" }),
  name: option(z.string({ error: "give --name N" }).min(1), { arg: "N", help: "the account: P's gateway, N its name" }),
};

const secretOption = (help: string) => option(z.string().min(1).optional(), { arg: "S", help });

/** The values given, with the one `-` read from standard input (one line, its end trimmed). */
async function withStdin<T extends Record<string, unknown>>(values: T, names: (keyof T)[]): Promise<T> {
  const fromStdin = names.filter((name) => values[name] === "-");
  if (fromStdin.length === 0) return values;
  if (fromStdin.length > 1)
    throw new Error(`only one of ${fromStdin.map((name) => `--${String(name)}`).join(", ")} can be read from standard input`);
  const value = (await text(process.stdin)).replace(/\r?\n$/, "");
  if (!value) throw new Error(`--${String(fromStdin[0])} -: standard input was empty`);
  return { ...values, [fromStdin[0]!]: value };
}

function describe(account: GatewayAccountView): string {
  const secrets = account.secrets.map(({ fingerprint }) => fingerprint).join(",") || "none";
  const credentials = Object.entries(account.credentials).map(([name, { fingerprint }]) => `${name} ${fingerprint}`);
  return [
    `${account.provider}/${account.name}`,
    account.enabled ? "enabled" : "disabled",
    account.source,
    `secrets ${secrets}`,
    credentials.length > 0 ? credentials.join(", ") : "default account's credentials",
    account.gatewayAccountId !== account.name ? `gateway id ${account.gatewayAccountId}` : "",
    account.webhookPath,
  ]
    .filter(Boolean)
    .join("  ");
}

const deps = (runtime: CliRuntime) => ({ pool: runtime.pool(), config: runtime.config });

export const addAccountCommand = command({
  name: "accounts:add",
  summary: "add a gateway account (or change one): its URL is /api/webhooks/P/N on every running process within seconds",
  options: z.object({
    ...accountOptions,
    secret: secretOption("a webhook secret (`-`: read from standard input)"),
    "api-key": secretOption("its API key (`-`: from standard input); unset, it reads with the default account's"),
    "marketplace-id": option(z.string().min(1).optional(), { arg: "M", help: "its marketplace id, where its gateway's API takes one" }),
    "gateway-account-id": option(z.string().min(1).optional(), {
      arg: "ID",
      help: "the gateway's own id of the account, as its events name it (acct_…, a seller's id); unset: N",
    }),
    disabled: flag("add it disabled (deliveries answered 503 until enabled)"),
  }),
  run: async (runtime, given) => {
    const values = await withStdin(given, ["secret", "api-key"]);
    const credentials = {
      ...(values["api-key"] ? { apiKey: values["api-key"] } : {}),
      ...(values["marketplace-id"] ? { marketplaceId: values["marketplace-id"] } : {}),
    };
    const { created, account } = await putGatewayAccount(
      deps(runtime),
      values.provider,
      values.name,
      {
        ...(values.secret ? { secrets: [values.secret] } : {}),
        ...(Object.keys(credentials).length > 0 ? { credentials } : {}),
        ...(values["gateway-account-id"] ? { gatewayAccountId: values["gateway-account-id"] } : {}),
        ...(values.disabled ? { enabled: false } : {}),
      },
      { name: cliActor() },
    );
    console.log(`${created ? "added" : "changed"} ${describe(account)}`);
    return 0;
  },
});

export const listAccountsCommand = command({
  name: "accounts:list",
  summary: "the gateway accounts: the environment's, then a page of the database's (fingerprints, never secrets)",
  options: z.object({
    provider: option(z.enum(PROVIDER_NAMES).optional(), { arg: "P", help: "only this gateway's" }),
    page: option(z.coerce.number().int().min(1).default(1), { arg: "N", help: "the page of 200 (default 1)" }),
  }),
  run: async (runtime, { provider, page }) => {
    for (const account of environmentAccountViews(runtime.config, provider as ProviderName | undefined)) console.log(describe(account));
    const { accounts, total } = await listGatewayAccountViews(runtime.pool(), { provider, page, pageSize: 200 });
    for (const account of accounts) console.log(describe(account));
    console.log(
      `${plural(total, "account")} in the database${total > accounts.length ? ` (page ${page} of ${Math.ceil(total / 200)})` : ""}`,
    );
    return 0;
  },
});

export const rotateAccountCommand = command({
  name: "accounts:rotate",
  summary: "a new secret verifying beside the old ones, a new API key, or the old secrets retired",
  options: z.object({
    ...accountOptions,
    secret: secretOption("the new webhook secret, verifying at once beside the old (`-`: from standard input)"),
    "api-key": secretOption("the new API key (`-`: from standard input)"),
    "retire-old": flag("keep only the newest secret (once the gateway signs with it)"),
  }),
  run: async (runtime, given) => {
    const values = await withStdin(given, ["secret", "api-key"]);
    const account = await rotateGatewayAccount(
      deps(runtime),
      values.provider,
      values.name,
      { secret: values.secret, apiKey: values["api-key"], retireOld: values["retire-old"] },
      { name: cliActor() },
    );
    console.log(`rotated ${describe(account)}`);
    return 0;
  },
});

const enabling = (enabled: boolean) =>
  command({
    name: enabled ? "accounts:enable" : "accounts:disable",
    summary: enabled ? "take a disabled account's deliveries again" : "refuse an account's deliveries (503, the gateway resends later)",
    options: z.object(accountOptions),
    run: async (runtime, { provider, name }) => {
      console.log(describe(await setGatewayAccountEnabled(deps(runtime), provider, name, enabled, { name: cliActor() })));
      return 0;
    },
  });

export const enableAccountCommand = enabling(true);
export const disableAccountCommand = enabling(false);

export const removeAccountCommand = command({
  name: "accounts:remove",
  summary: "remove a gateway account (its URL answers 404; its events and payments keep its name)",
  options: z.object(accountOptions),
  run: async (runtime, { provider, name }) => {
    await removeGatewayAccount(deps(runtime), provider, name, { name: cliActor() });
    console.log(`removed ${provider}/${name}`);
    return 0;
  },
});

export const resealAccountsCommand = command({
  name: "accounts:reseal",
  summary: "seal every account's secrets with the first key of ACCOUNT_SECRETS_KEY (after adding a new one in front)",
  run: async (runtime) => {
    const result = await resealGatewayAccounts(deps(runtime), { name: cliActor() });
    console.log(`re-sealed ${result.resealed}, already under the newest key ${result.current}, unreadable ${result.unreadable.length}`);
    for (const account of result.unreadable) console.log(`  no key opens ${account}`);
    return result.unreadable.length === 0 ? 0 : 1;
  },
});
