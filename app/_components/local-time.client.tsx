"use client";

/**
 * A time in the viewer's own zone, with the UTC time on hover. The server renders UTC; the browser
 * re-renders in its zone (hence suppressHydrationWarning).
 */
export function LocalTime({ value, withSeconds = true }: { value: string | Date | null | undefined; withSeconds?: boolean }) {
  if (!value) return <span className="muted">—</span>;
  const date = typeof value === "string" ? new Date(value) : value;
  const local = date.toLocaleString(undefined, {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    ...(withSeconds ? { second: "2-digit" } : {}),
  });
  const utc = date.toISOString().replace("T", " ").replace("Z", " UTC");
  return (
    <time dateTime={date.toISOString()} title={utc} suppressHydrationWarning>
      {local}
    </time>
  );
}
