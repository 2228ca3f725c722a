"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition, type ReactNode } from "react";
import { CopyButton } from "@/app/_components/copy-button.client";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { ActionResult } from "@/app/_server/action";
import type { DestinationsView } from "@/lib/console/get-destinations-view";
import {
  createDestination,
  resendDeliveries,
  rotateDestinationSecret,
  sendTestMessage,
  setDestinationEnabled,
  updateDestination,
} from "./actions";
import { plural, statusLabel } from "@/lib/text/words";

type DestinationTableRow = DestinationsView["destinations"][number];

const column = dataColumns<DestinationTableRow>();

/** The destinations' columns; the last holds the actions, which need the manager's state. */
function destinationColumns(actions: (destination: DestinationTableRow) => ReactNode) {
  return column.columns([
    column.accessor("name", {
      header: "Name",
      cell: (info) => {
        const destination = info.row.original;
        return (
          <>
            <Link href={`/destinations/${destination.id}`}>{destination.name}</Link>
            {destination.providers.length + destination.statuses.length > 0 ? (
              <div className="muted">{[...destination.providers, ...destination.statuses].join(", ")}</div>
            ) : null}
          </>
        );
      },
    }),
    column.accessor("url", { header: "URL", meta: { mono: true } }),
    column.accessor("enabled", {
      header: "State",
      cell: (info) => {
        const destination = info.row.original;
        if (!destination.enabled) {
          return (
            <span className="badge failed" title={destination.disabledReason ?? undefined}>
              disabled{destination.disabledReason ? `: ${destination.disabledReason}` : ""}
            </span>
          );
        }
        return destination.breakerOpenUntil ? (
          <span className="badge failed">circuit open</span>
        ) : (
          <span className="badge processed">enabled</span>
        );
      },
    }),
    column.accessor("successRateLastHour", {
      header: "Success (1 h)",
      meta: { numeric: true },
      cell: (info) => (info.getValue() === null ? "—" : `${(info.getValue()! * 100).toFixed(1)}%`),
    }),
    column.accessor("p95LatencyMsLastHour", {
      header: "p95 (1 h)",
      meta: { numeric: true },
      cell: (info) => (info.getValue() === null ? "—" : `${Math.round(info.getValue()!)} ms`),
    }),
    column.accessor("oldestUndeliveredAt", {
      header: "Oldest undelivered",
      cell: (info) => (info.getValue() ? <DisplayTime value={info.getValue()} /> : "none"),
    }),
    column.accessor("pending", { header: "Pending", meta: { numeric: true } }),
    column.accessor("dead", {
      header: "Dead",
      meta: { numeric: true },
      cell: (info) => <span data-testid={`dead-${info.row.original.id}`}>{info.getValue()}</span>,
    }),
    column.display({ id: "actions", header: "Actions", cell: (info) => actions(info.row.original) }),
  ]);
}

type Message = { kind: "ok" | "bad"; text: string; secret?: string };

/** A set of checkboxes under one legend (what a multi-select list box was: clearer, and usable by touch and keyboard). */
function Choices({
  legend,
  name,
  values,
  checked,
  label = (value) => value,
}: {
  legend: string;
  name: string;
  values: string[];
  checked: string[] | undefined;
  label?: (value: string) => string;
}) {
  return (
    <fieldset className="choices">
      <legend>{legend}</legend>
      {values.map((value) => (
        <label key={value}>
          <input type="checkbox" name={name} value={value} defaultChecked={checked?.includes(value) ?? false} /> {label(value)}
        </label>
      ))}
    </fieldset>
  );
}

export function DestinationsManager({
  destinations,
  providers,
  statuses,
}: {
  destinations: DestinationTableRow[];
  providers: string[];
  statuses: string[];
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<Message | null>(null);
  const [editing, setEditing] = useState<DestinationTableRow | null>(null);
  /** Runs an action, shows its outcome (a secret only this once), refreshes the list. */
  function run<T>(work: () => Promise<ActionResult<T>>, describe: (data: T) => string, secret?: (data: T) => string) {
    startTransition(async () => {
      const result = await work();
      setMessage(
        result.ok ? { kind: "ok", text: describe(result.data), secret: secret?.(result.data) } : { kind: "bad", text: result.error },
      );
      router.refresh();
    });
  }
  return (
    <>
      <form
        method="post"
        key={editing?.id ?? "new"}
        className="panel filters"
        aria-label={editing ? `Edit ${editing.name}` : "Add a destination"}
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const input = {
            name: String(form.get("name")),
            url: String(form.get("url")),
            providers: form.getAll("providers").map(String),
            statuses: form.getAll("statuses").map(String),
            enabled: form.get("enabled") === "on",
          };
          if (editing) {
            run(
              () => updateDestination({ ...input, id: editing.id }),
              () => `Saved ${input.name}.`,
            );
            setEditing(null);
          } else {
            event.currentTarget.reset();
            run(
              () => createDestination(input),
              () => `Added ${input.name}. Its signing secret (shown once; the host verifies with it):`,
              (data) => data.secret,
            );
          }
        }}
      >
        <label>
          Name
          <input name="name" required maxLength={100} defaultValue={editing?.name} />
        </label>
        <label>
          URL
          <input name="url" type="url" required placeholder="https://shop.internal/payments-webhook" defaultValue={editing?.url} />
        </label>
        <Choices legend="Providers (none: all)" name="providers" values={providers} checked={editing?.providers} />
        <Choices legend="Statuses (none: all)" name="statuses" values={statuses} checked={editing?.statuses} label={statusLabel} />
        <label>
          <input name="enabled" type="checkbox" defaultChecked={editing?.enabled ?? true} /> Enabled
        </label>
        <button className="primary" type="submit" disabled={pending}>
          {editing ? "Save" : "Add destination"}
        </button>
        {editing ? (
          <button type="button" onClick={() => setEditing(null)}>
            Cancel
          </button>
        ) : null}
      </form>
      {message ? (
        <p role="status" className={`banner ${message.kind}`}>
          {message.text}
          {message.secret ? (
            <>
              {" "}
              <code data-testid="destination-secret">{message.secret}</code> <CopyButton text={message.secret} label="Copy secret" />
            </>
          ) : null}
        </p>
      ) : null}
      <DataTable
        label="Destinations"
        columns={destinationColumns((destination) => (
          <>
            <button
              type="button"
              disabled={pending}
              onClick={() =>
                run(
                  () => sendTestMessage({ id: destination.id }),
                  (data) =>
                    data.statusCode === null
                      ? `Test message: no answer (${data.error}).`
                      : `Test message answered ${data.statusCode} in ${data.latencyMs} ms.`,
                )
              }
            >
              Send test
            </button>{" "}
            {destination.dead > 0 ? (
              <button
                type="button"
                disabled={pending}
                onClick={() => {
                  if (!window.confirm(`Resend ${destination.dead} dead deliveries to ${destination.name}?`)) return;
                  run(
                    () => resendDeliveries({ destinationId: destination.id }),
                    (data) => `Resending ${plural(data.resent, "delivery", "deliveries")}.`,
                  );
                }}
              >
                Resend dead
              </button>
            ) : null}{" "}
            <button
              type="button"
              disabled={pending}
              onClick={() =>
                run(
                  () => setDestinationEnabled({ id: destination.id, enabled: !destination.enabled }),
                  (data) => `${destination.name} ${data.enabled ? "enabled" : "disabled"}.`,
                )
              }
            >
              {destination.enabled ? "Disable" : "Enable"}
            </button>{" "}
            {destination.fromConfig ? (
              <span className="muted">from DESTINATION_URL</span>
            ) : (
              <>
                <button type="button" disabled={pending} onClick={() => setEditing(destination)}>
                  Edit
                </button>{" "}
                <button
                  type="button"
                  disabled={pending}
                  onClick={() => {
                    if (!window.confirm(`Rotate the secret of ${destination.name}? The old one keeps signing for a while.`)) return;
                    run(
                      () => rotateDestinationSecret({ id: destination.id }),
                      (data) => `New secret for ${destination.name} (shown once; the old one signs too for ${data.overlapHours} h):`,
                      (data) => data.secret,
                    );
                  }}
                >
                  Rotate secret
                </button>
              </>
            )}
          </>
        ))}
        rows={destinations}
        rowKey={(destination) => String(destination.id)}
        empty="No destinations yet."
      />
    </>
  );
}
