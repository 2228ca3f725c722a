/**
 * A status word with its color; the word itself carries the meaning (not the color alone). The
 * reason code stays visible (filters use it); the explanation sentence is the tooltip.
 */
export function StatusBadge({ status, reason, explanation }: { status: string; reason?: string | null; explanation?: string | null }) {
  return (
    <span className={`badge ${status}`} title={explanation || reason || undefined}>
      {status}
      {reason ? ` · ${reason.replaceAll("_", " ")}` : ""}
    </span>
  );
}
