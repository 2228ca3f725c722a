import type { Metadata } from "next";
import Link from "next/link";
import { requirePagePermission } from "@/app/_server/session";
import { AUDIT_ACTIONS } from "@/lib/audit/record-audit";
import { listAudit } from "@/lib/audit/list-audit";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { parseRowId } from "@/lib/request/input-schemas";
import { AuditTable } from "./audit-table.client";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

export default async function AuditPage({ searchParams }: { searchParams: Promise<{ before?: string; action?: string }> }) {
  await requirePagePermission(PAGE_ACCESS["/audit"]);
  const params = await searchParams;
  const action = AUDIT_ACTIONS.find((known) => known === params.action);
  const before = params.before === undefined ? undefined : parseRowId(params.before);
  if (before === null) {
    return (
      <>
        <h1>Audit log</h1>
        <p className="banner bad" role="alert">
          This link&apos;s page marker is not an audit entry id. <Link href="/audit">Newest entries</Link>
        </p>
      </>
    );
  }
  const page = await listAudit(webRuntime().pool, { before, action, limit: 100 });
  const withAction = (extra: Record<string, string>) => new URLSearchParams({ ...(action ? { action } : {}), ...extra }).toString();
  return (
    <>
      <h1>Audit log</h1>
      <form className="panel filters" action="/audit">
        <label>
          Action
          <select name="action" defaultValue={action ?? ""}>
            <option value="">all</option>
            {AUDIT_ACTIONS.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
      </form>
      <AuditTable
        rows={page.rows}
        paging={{
          summary: before ? "Older entries" : "Newest entries",
          prevHref: before ? `/audit?${withAction({})}` : null,
          nextHref: page.nextBefore ? `/audit?${withAction({ before: String(page.nextBefore) })}` : null,
        }}
      />
    </>
  );
}
