"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type ReactNode } from "react";
import { DataTable, dataColumns, type DataTablePaging } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { ActionResult } from "@/app/_server/action";
import type { GatewayAccountsView } from "@/lib/console/get-gateway-accounts-view";
import { addGatewayAccount, removeGatewayAccount, rotateGatewayAccount, setGatewayAccountEnabled } from "./actions";
import { agree, plural } from "@/lib/text/words";

type Account = GatewayAccountsView["accounts"][number];
type Gateway = GatewayAccountsView["gateways"][number];

const column = dataColumns<Account>();

/** Fingerprints, newest first: the first verifies new deliveries, the others until retired. */
function Secrets({ account }: { account: Account }) {
  if (account.secrets.length === 0) return <span className="muted">none (its URL answers 503)</span>;
  return (
    <span className="mono" data-testid={`secrets-${account.provider}-${account.name}`}>
      {account.secrets.map(({ fingerprint }, index) => (
        <span key={fingerprint} title={index === 0 ? "newest" : "still verifying until retired"}>
          {index > 0 ? ", " : ""}
          {fingerprint}
        </span>
      ))}
    </span>
  );
}

function Credentials({ account }: { account: Account }) {
  const set = Object.entries(account.credentials);
  if (set.length === 0) return <span className="muted">the default account&apos;s</span>;
  return <span className="mono">{set.map(([name, { fingerprint }]) => `${name} ${fingerprint}`).join(", ")}</span>;
}

/** The accounts' columns; the last holds the actions, which need the manager's state. */
function accountColumns(actions?: (account: Account) => ReactNode) {
  return column.columns([
    column.accessor("name", {
      header: "Account",
      cell: (info) => (
        <>
          <strong>
            {info.row.original.provider}/{info.getValue()}
          </strong>
          <div className="mono muted">{info.row.original.webhookPath}</div>
        </>
      ),
    }),
    column.accessor("enabled", {
      header: "State",
      cell: (info) => (
        <span className={`badge ${info.getValue() ? "processed" : "failed"}`}>{info.getValue() ? "enabled" : "disabled"}</span>
      ),
    }),
    column.display({ id: "secrets", header: "Secrets", cell: (info) => <Secrets account={info.row.original} /> }),
    column.display({ id: "credentials", header: "API credentials", cell: (info) => <Credentials account={info.row.original} /> }),
    column.accessor("gatewayAccountId", { header: "Gateway's id", meta: { mono: true } }),
    column.accessor("updatedAt", {
      header: "Changed",
      cell: (info) => (info.getValue() ? <DisplayTime value={info.getValue()!} /> : "—"),
    }),
    ...(actions ? [column.display({ id: "actions", header: "Actions", cell: (info) => actions(info.row.original) })] : []),
  ]);
}

type Message = { kind: "ok" | "bad"; text: string };

/** A secret input: never filled in, never remembered by the browser. */
function SecretInput({ name, label, required = false }: { name: string; label: string; required?: boolean }) {
  return (
    <label>
      {label}
      <input name={name} type="password" autoComplete="new-password" spellCheck={false} required={required} maxLength={1000} />
    </label>
  );
}

export function GatewayAccountsManager({
  accounts,
  gateways,
  paging,
}: {
  accounts: Account[];
  gateways: Gateway[];
  paging: DataTablePaging;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<Message | null>(null);
  const [rotating, setRotating] = useState<Account | null>(null);
  const [provider, setProvider] = useState(gateways[0]!.name);
  const credentials = gateways.find((gateway) => gateway.name === provider)?.credentials ?? [];
  /** Runs an action, says how it went (never with a secret), refreshes the list. */
  function run<T>(work: () => Promise<ActionResult<T>>, describe: (data: T) => string, done?: () => void) {
    startTransition(async () => {
      const result = await work();
      setMessage(result.ok ? { kind: "ok", text: describe(result.data) } : { kind: "bad", text: result.error });
      if (result.ok) done?.();
      router.refresh();
    });
  }
  const text = (form: FormData, name: string) => String(form.get(name) ?? "");
  return (
    <>
      <form
        method="post"
        className="panel filters"
        aria-label="Add an account"
        onSubmit={(event) => {
          event.preventDefault();
          const element = event.currentTarget;
          const form = new FormData(element);
          const input = {
            provider: text(form, "provider"),
            name: text(form, "name"),
            secret: text(form, "secret"),
            apiKey: text(form, "apiKey"),
            marketplaceId: text(form, "marketplaceId"),
            gatewayAccountId: text(form, "gatewayAccountId"),
          };
          run(
            () => addGatewayAccount(input),
            (account) => `Added ${account.provider}/${account.name}: its deliveries go to ${account.webhookPath}.`,
            () => element.reset(),
          );
        }}
      >
        <strong>Add an account</strong>
        <label>
          Gateway
          <select name="provider" value={provider} onChange={(event) => setProvider(event.target.value as Gateway["name"])}>
            {gateways.map((gateway) => (
              <option key={gateway.name} value={gateway.name}>
                {gateway.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name
          <input name="name" required maxLength={100} pattern="[A-Za-z0-9][A-Za-z0-9_.\-]*" title="letters, digits, _ . -" />
        </label>
        <SecretInput name="secret" label="Webhook secret" />
        {credentials.includes("apiKey") ? <SecretInput name="apiKey" label="API key (optional)" /> : null}
        {credentials.includes("marketplaceId") ? (
          <label>
            Marketplace id
            <input name="marketplaceId" maxLength={1000} />
          </label>
        ) : null}
        <label>
          Gateway&apos;s id (optional)
          <input name="gatewayAccountId" maxLength={200} placeholder="acct_…, user_id" />
        </label>
        <button className="primary" type="submit" disabled={pending}>
          Add account
        </button>
      </form>
      {rotating ? (
        <form
          method="post"
          className="panel filters"
          aria-label={`Rotate ${rotating.provider}/${rotating.name}`}
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            const input = { provider: rotating.provider, name: rotating.name, secret: text(form, "secret"), apiKey: text(form, "apiKey") };
            run(
              () => rotateGatewayAccount(input),
              (account) =>
                `Rotated ${account.provider}/${account.name}: ${plural(account.secrets.length, "secret")} ${agree(account.secrets.length, "verifies", "verify")} now; retire the old ones once the gateway signs with the new.`,
              () => setRotating(null),
            );
          }}
        >
          <strong>
            Rotate {rotating.provider}/{rotating.name}
          </strong>
          <SecretInput name="secret" label="New webhook secret" />
          {(gateways.find((gateway) => gateway.name === rotating.provider)?.credentials ?? []).includes("apiKey") ? (
            <SecretInput name="apiKey" label="New API key (optional)" />
          ) : null}
          <button className="primary" type="submit" disabled={pending}>
            Rotate
          </button>
          <button type="button" onClick={() => setRotating(null)}>
            Cancel
          </button>
        </form>
      ) : null}
      {message ? (
        <p role="status" className={`banner ${message.kind}`}>
          {message.text}
        </p>
      ) : null}
      <DataTable
        label="Gateway accounts"
        columns={accountColumns((account) => {
          const which = { provider: account.provider, name: account.name };
          return (
            <>
              <button type="button" disabled={pending} onClick={() => setRotating(account)}>
                Rotate
              </button>{" "}
              {account.secrets.length > 1 ? (
                <>
                  <button
                    type="button"
                    disabled={pending}
                    onClick={() =>
                      run(
                        () => rotateGatewayAccount({ ...which, retireOld: true }),
                        () => `Retired the old secrets of ${account.provider}/${account.name}: only the newest verifies.`,
                      )
                    }
                  >
                    Retire old
                  </button>{" "}
                </>
              ) : null}
              <button
                type="button"
                disabled={pending}
                onClick={() =>
                  run(
                    () => setGatewayAccountEnabled({ ...which, enabled: !account.enabled }),
                    (changed) =>
                      `${changed.provider}/${changed.name} ${changed.enabled ? "enabled" : "disabled: its deliveries are answered 503 and resent later"}.`,
                  )
                }
              >
                {account.enabled ? "Disable" : "Enable"}
              </button>{" "}
              <button
                type="button"
                disabled={pending}
                onClick={() => {
                  if (!window.confirm(`Remove ${account.provider}/${account.name}? Its URL will answer 404.`)) return;
                  run(
                    () => removeGatewayAccount(which),
                    () => `Removed ${account.provider}/${account.name}.`,
                  );
                }}
              >
                Remove
              </button>
            </>
          );
        })}
        rows={accounts}
        rowKey={(account) => `${account.provider}/${account.name}`}
        rowProps={(account) => ({ "data-testid": `account-${account.provider}-${account.name}` })}
        paging={paging}
        empty="No accounts in the database yet."
      />
    </>
  );
}

/** The environment's accounts: the same facts, no actions (they change in the environment). */
export function EnvironmentAccounts({ accounts }: { accounts: Account[] }) {
  return (
    <DataTable
      label="Accounts from the environment"
      columns={accountColumns()}
      rows={accounts}
      rowKey={(account) => `${account.provider}/${account.name}`}
      empty="None."
    />
  );
}
