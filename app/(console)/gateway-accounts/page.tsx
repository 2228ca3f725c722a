import type { Metadata } from "next";
import Link from "next/link";
import type { DataTablePaging } from "@/app/_components/data-table.client";
import { requirePageAccess } from "@/app/_server/session";
import { getGatewayAccountsView } from "@/lib/console/get-gateway-accounts-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { EnvironmentAccounts, GatewayAccountsManager } from "./gateway-accounts-manager.client";
import { plural } from "@/lib/text/words";

export const metadata: Metadata = { title: "Gateway accounts" };
export const dynamic = "force-dynamic";

export default async function GatewayAccountsPage({ searchParams }: { searchParams: Promise<Record<string, string>> }) {
  await requirePageAccess("/gateway-accounts");
  const query = await searchParams;
  const runtime = webRuntime();
  const view = await getGatewayAccountsView(runtime.pool, runtime.config, query);
  const pages = Math.max(1, Math.ceil(view.total / view.pageSize));
  const href = (page: number) => `?${new URLSearchParams({ ...query, page: String(page) }).toString()}`;
  const paging: DataTablePaging = {
    testId: "accounts-total",
    summary: `Page ${view.page} of ${pages} · ${plural(view.total, "account")}`,
    prevHref: view.page > 1 ? href(view.page - 1) : null,
    nextHref: view.page * view.pageSize < view.total ? href(view.page + 1) : null,
  };
  return (
    <>
      <h1>Gateway accounts</h1>
      <p className="muted">
        Each account receives on its own URL, verified with its own secrets, and its refetches and reconciliation use its own API key (none:
        the default account&apos;s). Secrets are stored sealed and never shown again: a fingerprint (the first 8 hex digits of its SHA-256)
        tells them apart. A change reaches the web, the workers and <code>npm run ingest</code> within seconds.
      </p>
      {view.canSeal ? null : (
        <p role="alert" className="banner bad">
          ACCOUNT_SECRETS_KEY is not set: accounts can&apos;t be added here (see <Link href="/docs/operations">docs/operations.md</Link>).
        </p>
      )}
      <form className="panel filters" method="get" aria-label="Filter accounts">
        <label>
          Gateway
          <select name="provider" defaultValue={view.inputs.provider}>
            <option value="">any</option>
            {view.gateways.map((gateway) => (
              <option key={gateway.name} value={gateway.name}>
                {gateway.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name starts with
          <input name="search" defaultValue={view.inputs.search} maxLength={100} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <GatewayAccountsManager accounts={view.accounts} gateways={view.gateways} paging={paging} />
      {view.environment.length > 0 ? (
        <>
          <h2>From the environment</h2>
          <p className="muted">
            Named in <code>&lt;PROVIDER&gt;_ACCOUNTS</code>: changed there, with a restart.
          </p>
          <EnvironmentAccounts accounts={view.environment} />
        </>
      ) : null}
    </>
  );
}
