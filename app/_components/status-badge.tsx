/** A status word with its color; the word itself carries the meaning (not the color alone). */
export function StatusBadge({ status, reason }: { status: string; reason?: string | null }) {
  return (
    <span className={`badge ${status}`} title={reason ?? undefined}>
      {status}
      {reason ? ` · ${reason.replaceAll("_", " ")}` : ""}
    </span>
  );
}
