import type { Metadata } from "next";
import Link from "next/link";
import { DisplayTime } from "@/app/_components/display-time.client";
import { requirePagePermission } from "@/app/_server/session";
import { AUDIT_ACTIONS } from "@/lib/audit/record-audit";
import { listAudit } from "@/lib/audit/list-audit";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { parseRowId } from "@/lib/request/input-schemas";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

const plain = (value: unknown): string =>
  value === null || value === undefined ? "—" : typeof value === "object" ? JSON.stringify(value) : String(value);

/** An audit row's details as labelled lines (a replay's filter as conditions, its run as a link). */
function AuditDetails({ details }: { details: unknown }) {
  if (!details || typeof details !== "object") return <span className="muted">{plain(details)}</span>;
  const entries = Object.entries(details as Record<string, unknown>);
  if (entries.length === 0) return <span className="muted">—</span>;
  return (
    <dl className="kv">
      {entries.map(([key, value]) => (
        <div key={key} style={{ display: "contents" }}>
          <dt>{key}</dt>
          <dd>
            {key === "runId" && typeof value === "number" ? (
              <Link href={`/replays/${value}`}>bulk run #{value}</Link>
            ) : value && typeof value === "object" && !Array.isArray(value) ? (
              Object.entries(value as Record<string, unknown>)
                .map(([name, inner]) => `${name}: ${plain(inner)}`)
                .join(" · ") || "—"
            ) : (
              plain(value)
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

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
                <td>
                  <AuditDetails details={row.details} />
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
