"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { startBulkReplay } from "@/app/(console)/events/actions";
import { plural } from "@/lib/text/words";

export function BulkReplayForm({
  filter,
  expected,
  needsConfirmation,
}: {
  filter: Record<string, unknown>;
  expected: number;
  needsConfirmation: boolean;
}) {
  const router = useRouter();
  const [confirmation, setConfirmation] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const confirmed = !needsConfirmation || confirmation.trim() === String(expected);
  return (
    <form
      method="post"
      className="panel"
      onSubmit={(event) => {
        event.preventDefault();
        startTransition(async () => {
          const result = await startBulkReplay({ filter, confirmation });
          if (result.ok) router.push(`/replays/${result.data.runId}`);
          else setError(result.error);
        });
      }}
    >
      {needsConfirmation ? (
        <label>
          This replays {plural(expected, "event")}. Type {expected} to confirm.
          <input
            value={confirmation}
            onChange={(event) => setConfirmation(event.target.value)}
            inputMode="numeric"
            autoComplete="off"
            required
          />
        </label>
      ) : null}
      {error ? (
        <p role="alert" className="banner bad">
          {error}
        </p>
      ) : null}
      <p>
        <button className="danger" type="submit" disabled={!confirmed || pending}>
          {pending ? "Starting…" : `Replay ${plural(expected, "event")}`}
        </button>
      </p>
    </form>
  );
}
