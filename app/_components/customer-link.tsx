import Link from "next/link";
import { Breakable } from "./breakable";
import type { EventTableRow } from "@/lib/console/get-events-view";

/**
 * A customer as the viewer may see them (masked or not), linking to their page when the viewer may
 * see the real reference (null for masked roles: no PII in their URLs).
 */
export function CustomerLink({ customerShown, customerRef }: Pick<EventTableRow, "customerShown" | "customerRef">) {
  if (!customerShown) return <span className="muted">—</span>;
  if (!customerRef) return <span>{customerShown}</span>;
  return (
    <Link href={`/customers/${encodeURIComponent(customerRef)}`}>
      <Breakable text={customerShown} />
    </Link>
  );
}
