/** A delivery's state, in the status badges' colours (delivered green, dead red, pending neutral). */
export function DeliveryBadge({ status }: { status: string }) {
  const tone = status === "delivered" ? "processed" : status === "dead" ? "failed" : "pending";
  return <span className={`badge ${tone}`}>{status}</span>;
}
