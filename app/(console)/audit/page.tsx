import type { Metadata } from "next";
import Link from "next/link";
import { requirePageAccess } from "@/app/_server/session";
import { getAuditView } from "@/lib/console/get-audit-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { AuditTable } from "./audit-table.client";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

export default async function AuditPage({ searchParams }: { searchParams: Promise<{ before?: string; action?: string }> }) {
  await requirePageAccess("/audit");
  const view = await getAuditView(webRuntime().pool, await searchParams);
  if (!view.ok) {
    return (
      <>
        <h1>Audit log</h1>
        <p className="banner bad" role="alert">
          This link&apos;s page marker is not an audit entry id. <Link href="/audit">Newest entries</Link>
        </p>
      </>
    );
  }
  const { action, before } = view;
  const withAction = (extra: Record<string, string>) => new URLSearchParams({ ...(action ? { action } : {}), ...extra }).toString();
  return (
    <>
      <h1>Audit log</h1>
      <form method="get" className="panel filters" action="/audit">
        <label>
          Action
          <select name="action" defaultValue={action ?? ""}>
            <option value="">all</option>
            {view.actions.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
      </form>
      <AuditTable
        rows={view.rows}
        paging={{
          summary: before ? "Older entries" : "Newest entries",
          prevHref: before ? `/audit?${withAction({})}` : null,
          nextHref: view.nextBefore ? `/audit?${withAction({ before: String(view.nextBefore) })}` : null,
        }}
      />
    </>
  );
}
