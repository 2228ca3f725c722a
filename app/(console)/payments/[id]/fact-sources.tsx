import Link from "next/link";
import { Breakable } from "@/app/_components/breakable";
import type { FactSource } from "@/lib/console/get-payment-view";

/** Each fact with the event that supplied it ("customer e-mail: charge.succeeded evt_…, ignored"). */
export function FactSources({ sources, registered }: { sources: FactSource[]; registered: boolean }) {
  if (sources.length === 0) return <span className="muted">{registered ? "your application's registration" : "not recorded"}</span>;
  return (
    <ul className="plain">
      {sources.map((source) => (
        <li key={source.fact}>
          {/* "account from <event>": a fact's name beside an event id must not read as its value. */}
          {source.fact} from <Breakable text={source.eventType} />{" "}
          <Link className="mono" href={`/events/${source.inboxId}`}>
            {source.eventId}
          </Link>{" "}
          <span className="muted">
            ({source.status}
            {source.source === "refetch" ? ", refetched" : ""})
          </span>
        </li>
      ))}
    </ul>
  );
}
