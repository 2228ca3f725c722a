"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { restoreEvent } from "../actions";

/** Brings an archived payload back from the archive files; the page then shows it again. */
export function RestoreButton({ id }: { id: number }) {
  const router = useRouter();
  const [restoring, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const restore = () =>
    startTransition(async () => {
      const result = await restoreEvent({ id });
      if (result.ok) router.refresh();
      else setError(result.error);
    });
  return (
    <span className="row">
      <button type="button" onClick={restore} disabled={restoring}>
        {restoring ? "Restoring…" : "Restore payload"}
      </button>
      {error ? (
        <span role="alert" className="muted">
          {error}
        </span>
      ) : null}
    </span>
  );
}
