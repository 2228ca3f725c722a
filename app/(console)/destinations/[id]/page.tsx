import type { Metadata } from "next";
import { notFound } from "next/navigation";
import type { DataTablePaging } from "@/app/_components/data-table.client";
import { displayZone } from "@/app/_server/display-zone";
import { requirePageAccess } from "@/app/_server/session";
import { getDestinationView } from "@/lib/console/get-destination-view";
import { parseRowId } from "@/lib/request/input-schemas";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { AttemptInspector } from "./attempt-inspector";
import { AttemptsTable } from "./attempts-table.client";
import { DeliveriesTable } from "./deliveries-table.client";
import { BulkResend, DestinationActions, RecoverSince } from "./incident-actions.client";
import { QueuedWindow } from "./queued-window";
import { StateHeader } from "./state-header";
import { plural } from "@/lib/text/words";

export const metadata: Metadata = { title: "Deliveries" };
export const dynamic = "force-dynamic";

/** The pager of one of the page's lists: its page parameter moved, every other parameter kept. */
function paging(
  params: Record<string, string>,
  param: string,
  list: { page: number; pageSize: number; total: number; totalCapped: boolean },
  noun: [one: string, many: string],
  hash: string,
): DataTablePaging {
  const pages = Math.max(1, Math.ceil(list.total / list.pageSize));
  const href = (page: number) => `?${new URLSearchParams({ ...params, [param]: String(page) }).toString()}${hash}`;
  return {
    testId: `${noun[0]}-total`,
    summary: `Page ${list.page} of ${list.totalCapped ? "many" : pages} · ${list.totalCapped ? `${list.total.toLocaleString("en-US")}+ ${noun[1]}` : plural(list.total, noun[0], noun[1])}`,
    prevHref: list.page > 1 ? href(list.page - 1) : null,
    nextHref: list.page * list.pageSize < list.total ? href(list.page + 1) : null,
  };
}

export default async function DestinationPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string>>;
}) {
  await requirePageAccess("/destinations/[id]");
  const id = parseRowId((await params).id);
  const query = await searchParams;
  const view = id === null ? null : await getDestinationView(webRuntime().pool, id, query, await displayZone());
  if (!view) notFound();
  const { state, inputs } = view;
  const { attempt: _inspected, ...withoutAttempt } = query;
  const { delivery: _delivery, attempts: _attemptsPage, ...withoutDelivery } = query;
  return (
    <>
      <h1>{state.name}</h1>
      <p className="mono muted">{state.url}</p>
      <StateHeader state={state} />
      <DestinationActions state={state} />
      <h2>Deliveries</h2>
      <form className="panel filters" method="get" aria-label="Filter deliveries">
        <label>
          Status
          <select name="status" defaultValue={inputs.status}>
            <option value="">any</option>
            {view.statuses.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>
        </label>
        <label>
          Charge id
          <input name="chargeId" defaultValue={inputs.chargeId} />
        </label>
        <QueuedWindow from={inputs.from} to={inputs.to} />
        <button type="submit">Filter</button>
      </form>
      <DeliveriesTable deliveries={view.deliveries.rows} paging={paging(query, "page", view.deliveries, ["delivery", "deliveries"], "")} />
      <div className="grid-2">
        <BulkResend destinationId={state.id} resendable={view.resendable} inputs={inputs} />
        <RecoverSince destinationId={state.id} />
      </div>
      <div className="row" id="attempts">
        <h2>Attempts{view.attempts.deliveryId ? ` of delivery ${view.attempts.deliveryId}` : null}</h2>
        {view.attempts.deliveryId ? <a href={`?${new URLSearchParams(withoutDelivery).toString()}#attempts`}>all attempts</a> : null}
      </div>
      {view.inspected ? (
        <AttemptInspector attempt={view.inspected} closeHref={`?${new URLSearchParams(withoutAttempt).toString()}#attempts`} />
      ) : null}
      <AttemptsTable
        attempts={view.attempts.rows}
        inspected={view.inspected?.id ?? null}
        paging={paging(query, "attempts", view.attempts, ["attempt", "attempts"], "#attempts")}
      />
    </>
  );
}
