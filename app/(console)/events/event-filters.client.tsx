"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

const STATUSES = ["pending", "processed", "ignored", "failed"] as const;

/** An ISO time from the URL as a value for <input type="datetime-local">, in the viewer's zone. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** A datetime-local value (viewer's zone) as UTC ISO for the URL. */
function fromLocalInput(value: FormDataEntryValue | null): string | undefined {
  if (!value || typeof value !== "string") return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The explorer's filters; applying them rewrites the URL, which is the explorer's whole state. */
export function EventFilters({ providers, initial }: { providers: string[]; initial: Record<string, string> }) {
  const router = useRouter();
  const [statuses, setStatuses] = useState<string[]>(initial.status?.split(",") ?? []);
  return (
    <form
      className="filters"
      role="search"
      aria-label="Filter events"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const params = new URLSearchParams();
        const set = (name: string, value: string | undefined) => value && params.set(name, value);
        set("q", String(form.get("q") ?? "").trim());
        set("provider", String(form.get("provider") ?? ""));
        if (statuses.length) params.set("status", statuses.join(","));
        set("type", String(form.get("type") ?? "").trim());
        set("from", fromLocalInput(form.get("from")));
        set("to", fromLocalInput(form.get("to")));
        set("occurredFrom", fromLocalInput(form.get("occurredFrom")));
        set("occurredTo", fromLocalInput(form.get("occurredTo")));
        set("path", String(form.get("path") ?? "").trim());
        set("value", String(form.get("value") ?? ""));
        if (initial.sort) params.set("sort", initial.sort);
        router.push(`/events?${params.toString()}`);
      }}
    >
      <label>
        Search (e-mail, event, charge or customer id)
        <input name="q" type="search" defaultValue={initial.q} size={32} />
      </label>
      <label>
        Provider
        <select name="provider" defaultValue={initial.provider ?? ""}>
          <option value="">any</option>
          {providers.map((provider) => (
            <option key={provider}>{provider}</option>
          ))}
        </select>
      </label>
      <fieldset style={{ border: "none", padding: 0, margin: 0 }}>
        <legend className="muted" style={{ fontSize: 12 }}>
          Status
        </legend>
        <div className="row">
          {STATUSES.map((status) => (
            <label key={status} style={{ flexDirection: "row", alignItems: "center", gap: 4, color: "inherit" }}>
              <input
                type="checkbox"
                name="status"
                value={status}
                checked={statuses.includes(status)}
                onChange={(event) =>
                  setStatuses((current) => (event.target.checked ? [...current, status] : current.filter((item) => item !== status)))
                }
              />
              {status}
            </label>
          ))}
        </div>
      </fieldset>
      <label>
        Type
        <input name="type" defaultValue={initial.type} size={22} placeholder="charge.refunded" />
      </label>
      <label>
        Received from
        <input name="from" type="datetime-local" defaultValue={toLocalInput(initial.from)} />
      </label>
      <label>
        Received to
        <input name="to" type="datetime-local" defaultValue={toLocalInput(initial.to)} />
      </label>
      <label>
        Occurred from
        <input name="occurredFrom" type="datetime-local" defaultValue={toLocalInput(initial.occurredFrom)} />
      </label>
      <label>
        Occurred to
        <input name="occurredTo" type="datetime-local" defaultValue={toLocalInput(initial.occurredTo)} />
      </label>
      <label>
        Payload path
        <input name="path" defaultValue={initial.path} placeholder="data.object.metadata.order_id" size={26} />
      </label>
      <label>
        equals
        <input name="value" defaultValue={initial.value} size={14} />
      </label>
      <button className="primary" type="submit">
        Apply
      </button>
      <button type="button" onClick={() => router.push("/events")}>
        Clear
      </button>
    </form>
  );
}
