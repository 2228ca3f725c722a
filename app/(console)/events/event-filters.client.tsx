"use client";

import { useRouter } from "next/navigation";
import { useDisplayZone } from "@/app/_components/display-time.client";
import { fromZonedInput, toZonedInput, zoneLabel, zonedParts } from "@/lib/time/format-time";
import { ProviderSelect } from "@/app/_components/provider-select";
import { AccountInput } from "@/app/_components/account-input";

const STATUS_CHOICES = ["pending", "processed", "ignored", "failed", "failed,ignored"];

const RECEIVED_PRESETS: Record<string, number> = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000 };

/**
 * The explorer's filters; applying them rewrites the URL, which is the explorer's whole state. The
 * usual ones (search, provider, status, received window) come first; the rest fold under "More
 * filters" so the keyboard reaches the results in a few tabs. Times are read in the display zone.
 */
export function EventFilters({
  providers,
  initial,
  searchLabel,
}: {
  providers: string[];
  initial: Record<string, string>;
  searchLabel: string;
}) {
  const router = useRouter();
  const zone = useDisplayZone();
  const statusChoices = initial.status && !STATUS_CHOICES.includes(initial.status) ? [...STATUS_CHOICES, initial.status] : STATUS_CHOICES;
  const toInput = (iso: string | undefined) => {
    const date = iso ? new Date(iso) : null;
    return date && !Number.isNaN(date.getTime()) ? toZonedInput(date, zone) : "";
  };
  const moreOpen = Boolean(
    initial.account || initial.type || initial.from || initial.to || initial.occurredFrom || initial.occurredTo || initial.path,
  );
  return (
    <form
      method="get"
      className="filters"
      role="search"
      aria-label="Filter events"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const text = (name: string) => String(form.get(name) ?? "").trim();
        const time = (name: string) => fromZonedInput(text(name), zone)?.toISOString();
        const params = new URLSearchParams();
        const set = (name: string, value: string | undefined) => value && params.set(name, value);
        set("q", text("q"));
        set("provider", text("provider"));
        set("account", text("account"));
        set("status", text("status"));
        set("type", text("type"));
        const preset = RECEIVED_PRESETS[text("window")];
        set("from", preset ? new Date(Date.now() - preset).toISOString() : time("from"));
        set("to", preset ? undefined : time("to"));
        set("occurredFrom", time("occurredFrom"));
        set("occurredTo", time("occurredTo"));
        set("path", text("path"));
        set("value", String(form.get("value") ?? ""));
        set("run", text("run"));
        set("customer", text("customer"));
        if (form.get("payment") === "none") params.set("payment", "none");
        if (initial.sort) params.set("sort", initial.sort);
        router.push(`/events?${params.toString()}`);
      }}
    >
      <label>
        {searchLabel}
        <input
          name="q"
          type="search"
          defaultValue={initial.q}
          size={32}
          data-search-box
          aria-keyshortcuts="/ ArrowDown"
          placeholder="Press / to search, ↓ for results"
          onKeyDown={(event) => {
            // ↓ goes from the search box straight to the first result row.
            if (event.key !== "ArrowDown") return;
            const first = document.querySelector<HTMLElement>("table[aria-label=Events] tbody tr[tabindex]");
            if (!first) return;
            event.preventDefault();
            first.focus();
          }}
        />
      </label>
      <ProviderSelect providers={providers} value={initial.provider} />
      <label>
        Status
        <select name="status" defaultValue={initial.status ?? ""}>
          <option value="">any</option>
          {statusChoices.map((choice) => (
            <option key={choice} value={choice}>
              {choice.replaceAll(",", " or ")}
            </option>
          ))}
        </select>
      </label>
      <label>
        Received
        <select name="window" defaultValue="">
          <option value="">{initial.from || initial.to ? "as set below" : "any time"}</option>
          <option value="1h">last hour</option>
          <option value="24h">last 24 hours</option>
          <option value="7d">last 7 days</option>
        </select>
      </label>
      {initial.run ? (
        <label>
          Replay run
          <input name="run" defaultValue={initial.run} size={6} inputMode="numeric" />
        </label>
      ) : null}
      {initial.customer ? (
        <label>
          Customer
          <input name="customer" defaultValue={initial.customer} size={24} />
        </label>
      ) : null}
      {initial.payment ? (
        <label>
          <input name="payment" type="checkbox" value="none" defaultChecked />
          No payment yet
        </label>
      ) : null}
      <button className="primary" type="submit">
        Apply
      </button>
      <button type="button" onClick={() => router.push("/events")}>
        Clear
      </button>
      <details className="more-filters" open={moreOpen}>
        <summary>More filters (account, type, exact times, payload)</summary>
        <div className="filters-more">
          <AccountInput value={initial.account} />
          <label>
            Type
            <input name="type" defaultValue={initial.type} size={22} placeholder="charge.refunded" />
          </label>
          <label>
            Received from ({zoneLabel(zonedParts(new Date(), zone).offsetMinutes)})
            <input name="from" type="datetime-local" defaultValue={toInput(initial.from)} />
          </label>
          <label>
            Received to
            <input name="to" type="datetime-local" defaultValue={toInput(initial.to)} />
          </label>
          <label>
            Occurred from
            <input name="occurredFrom" type="datetime-local" defaultValue={toInput(initial.occurredFrom)} />
          </label>
          <label>
            Occurred to
            <input name="occurredTo" type="datetime-local" defaultValue={toInput(initial.occurredTo)} />
          </label>
          <label>
            Payload path
            <input name="path" defaultValue={initial.path} placeholder="data.object.metadata.order_id" size={26} />
          </label>
          <label>
            equals
            <input name="value" defaultValue={initial.value} size={14} />
          </label>
        </div>
      </details>
    </form>
  );
}
