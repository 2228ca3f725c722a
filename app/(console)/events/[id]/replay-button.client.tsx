"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";
import { replayEvent } from "../actions";

// How long the button follows a replayed event before leaving it to a manual reload.
const FOLLOW_REFRESHES = 30;

/**
 * One-click replay of one stored event. Once it is back to pending the page refreshes every second
 * until the worker settles it, and then says how it settled (the badge beside it follows).
 */
export function ReplayButton({ id, status, settledAt }: { id: number; status: string; settledAt: string | null }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<string | null>(null);
  const [following, setFollowing] = useState(0);
  // When the event was settled before the replay: a settlement after it is the replay's outcome.
  const [settledBefore, setSettledBefore] = useState<string | null>(null);
  useEffect(() => {
    if (following === 0) return;
    if (status !== "pending" && settledAt !== settledBefore) {
      setMessage(`Replayed: ${status}.`);
      setFollowing(0);
      return;
    }
    if (following > FOLLOW_REFRESHES) {
      setMessage("Replayed: still pending; the worker will settle it.");
      setFollowing(0);
      return;
    }
    const timer = setTimeout(() => {
      router.refresh();
      setFollowing((count) => count + 1);
    }, 1000);
    return () => clearTimeout(timer);
  }, [following, status, settledAt, settledBefore, router]);
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
            setMessage(result.ok ? (result.data.replayed ? "Replayed: back to pending…" : "Nothing to replay.") : result.error);
            if (result.ok && result.data.replayed) {
              setSettledBefore(settledAt);
              setFollowing(1);
            }
            router.refresh();
          })
        }
      >
        {pending ? "Replaying…" : "Replay"}
      </button>
      {message ? (
        <span role="status" className="muted" data-testid="replay-message">
          {message}
        </span>
      ) : null}
    </div>
  );
}
