"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { Finding, RequestedReconciliation } from "@/lib/console/reconciliation-actions";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import { Breakable } from "@/app/_components/breakable";
import { reconcileGateway } from "./actions";
import { agree, plural, statusLabel } from "@/lib/text/words";

const column = dataColumns<Finding>();
const findingColumns = column.columns([
  column.accessor("kind", { header: "Kind", cell: (info) => statusLabel(info.getValue()) }),
  column.accessor((finding) => finding.resourceId ?? "—", { id: "charge", header: "Charge", meta: { mono: true } }),
  column.accessor((finding) => finding.eventType ?? "—", {
    id: "event",
    header: "Event",
    cell: (info) => <Breakable text={info.getValue()} />,
  }),
  column.accessor((finding) => (finding.theirs ? `${statusLabel(finding.ours ?? "none")} → ${statusLabel(finding.theirs)}` : "—"), {
    id: "states",
    header: "Ours → gateway's",
  }),
]);

/** "P" for the default account, "P account A" for another. */
const whose = (result: { provider: string; account: string }) =>
  result.account === "default" ? result.provider : `${result.provider} account ${result.account}`;

function Summary({ result }: { result: RequestedReconciliation }) {
  if (result.outcome === "waiting")
    return (
      <p role="status">
        {result.started
          ? `The ${whose(result)} run is still going in a worker; it shows in the runs below when it ends.`
          : "No worker has taken the request yet: is a worker running? It runs when one does."}
      </p>
    );
  if (result.outcome === "busy") return <p role="status">A run of {whose(result)} is in progress; try again when it ends.</p>;
  if (result.outcome === "unavailable") return <p role="status">{result.reason}</p>;
  const [ingest, repair] = result.dryRun ? ["would ingest", "would repair"] : ["ingested", "repaired"];
  return (
    <div role="status" data-testid="reconcile-result">
      <p>
        {result.dryRun ? "Preview (nothing written)" : `Run #${result.runId}`}: {whose(result)}, <DisplayTime value={result.since} /> to{" "}
        <DisplayTime value={result.until} />. Listed <strong>{result.listed}</strong> in {plural(result.pages, "page")}; {ingest}{" "}
        <strong data-testid="reconcile-missing">{result.missingIngested}</strong> missed {agree(result.missingIngested, "event", "events")},{" "}
        {repair} <strong data-testid="reconcile-repaired">{result.repaired}</strong> {agree(result.repaired, "payment", "payments")};
        refetched {plural(result.stuckRefetched, "stuck payment")}; {plural(result.errors, "error")}.
        {result.complete ? "" : " The window is not finished: the next run resumes it."}
      </p>
      {result.lastError ? <p className="muted">Last error: {result.lastError}</p> : null}
      {result.findings.length > 0 ? (
        <DataTable
          label="Findings"
          columns={findingColumns}
          rows={result.findings}
          rowKey={(finding) => `${finding.kind}-${finding.eventId ?? finding.resourceId}`}
          empty="Nothing found."
        />
      ) : null}
    </div>
  );
}

/** Pick a gateway (and optionally a window), preview what a run would do, then run it. */
export function ReconcileForm({ providers }: { providers: string[] }) {
  const router = useRouter();
  const [provider, setProvider] = useState(providers[0] ?? "");
  const [account, setAccount] = useState("");
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  const [result, setResult] = useState<RequestedReconciliation | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const submit = (dryRun: boolean) =>
    startTransition(async () => {
      const answer = await reconcileGateway({
        provider: provider as never,
        account: account.trim() || undefined,
        since: since || undefined,
        until: until || undefined,
        dryRun,
      });
      setResult(answer.ok ? answer.data : null);
      setError(answer.ok ? null : answer.error);
      if (!dryRun) router.refresh();
    });
  if (providers.length === 0) return <p className="panel muted">No gateway has its API credentials set: nothing to reconcile.</p>;
  return (
    <section className="panel" aria-labelledby="run">
      <h2 id="run">Preview and run</h2>
      <div className="row">
        <label>
          Gateway{" "}
          <select value={provider} onChange={(event) => setProvider(event.target.value)} name="provider">
            {providers.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Account <input name="account" placeholder="default" value={account} onChange={(event) => setAccount(event.target.value)} />
        </label>
        <label>
          Since{" "}
          <input name="since" placeholder="ISO-8601, or the cursor" value={since} onChange={(event) => setSince(event.target.value)} />
        </label>
        <label>
          Until <input name="until" placeholder="now" value={until} onChange={(event) => setUntil(event.target.value)} />
        </label>
        <button type="button" disabled={pending} onClick={() => submit(true)}>
          Preview
        </button>
        <button type="button" className="primary" disabled={pending} onClick={() => submit(false)}>
          {pending ? "Working…" : "Run"}
        </button>
      </div>
      {error ? (
        <p role="alert" className="banner bad">
          {error}
        </p>
      ) : null}
      {result ? <Summary result={result} /> : null}
    </section>
  );
}
