import type { Metadata } from "next";
import Link from "next/link";
import { DisplayTime } from "@/app/_components/display-time.client";
import { requirePagePermission } from "@/app/_server/session";
import { AUDIT_ACTIONS } from "@/lib/audit/record-audit";
import { listAudit } from "@/lib/audit/list-audit";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

export default async function AuditPage({ searchParams }: { searchParams: Promise<{ before?: string; action?: string }> }) {
  await requirePagePermission(PAGE_ACCESS["/audit"]);
  const params = await searchParams;
  const action = AUDIT_ACTIONS.find((known) => known === params.action);
  const before = Number(params.before) || undefined;
  const page = await listAudit(webRuntime().prisma, { before, action, limit: 100 });
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
      {page.rows.length === 0 ? (
        <p className="panel muted">Nothing recorded.</p>
      ) : (
        <table className="data" aria-label="Audit log">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>Action</th>
              <th>IP</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {page.rows.map((row) => (
              <tr key={row.id}>
                <td>
                  <DisplayTime value={row.at} />
                </td>
                <td>{row.actor}</td>
                <td>{row.action}</td>
                <td className="mono">{row.ip ?? ""}</td>
                <td className="mono truncate" title={JSON.stringify(row.details)}>
                  {JSON.stringify(row.details)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="pager">
        {before ? <Link href={`/audit?${withAction({})}`}>« Newest</Link> : null}
        {page.nextBefore ? <Link href={`/audit?${withAction({ before: String(page.nextBefore) })}`}>Older »</Link> : null}
      </div>
    </>
  );
}
