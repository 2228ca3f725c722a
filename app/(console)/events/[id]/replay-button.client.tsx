"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { replayEvent } from "../actions";

/** One-click replay of one stored event; the page refreshes to show it pending, then processed. */
export function ReplayButton({ id, status }: { id: number; status: string }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<string | null>(null);
  return (
    <div className="row">
      <button
        type="button"
        className="primary"
        disabled={pending || status === "pending"}
        title={status === "pending" ? "Already pending: it will be processed" : undefined}
        onClick={() =>
          startTransition(async () => {
            const result = await replayEvent({ id });
            setMessage(result.ok ? (result.data.replayed ? "Replayed: back to pending." : "Nothing to replay.") : result.error);
            router.refresh();
          })
        }
      >
        {pending ? "Replaying…" : "Replay"}
      </button>
      {message ? (
        <span role="status" className="muted">
          {message}
        </span>
      ) : null}
    </div>
  );
}
