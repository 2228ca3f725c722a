import { statusLabel } from "@/lib/text/words";

/**
 * A status word with its color; the word itself carries the meaning (not the color alone). The
 * reason stays visible, in words (filters use it); the explanation sentence is the tooltip.
 */
export function StatusBadge({ status, reason, explanation }: { status: string; reason?: string | null; explanation?: string | null }) {
  return (
    <span className={`badge ${status}`} title={explanation || reason || undefined}>
      {statusLabel(status)}
      {reason ? ` · ${statusLabel(reason)}` : ""}
    </span>
  );
}
