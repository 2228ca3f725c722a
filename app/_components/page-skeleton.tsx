/** Shown while a data-heavy page streams in. */
export function PageSkeleton() {
  return (
    <div aria-busy="true" aria-live="polite">
      <span className="sr-only">Loading…</span>
      {Array.from({ length: 8 }, (_, index) => (
        <div key={index} className="skeleton" style={{ width: `${90 - index * 7}%` }} />
      ))}
    </div>
  );
}
