"use client";

import type { ActionResult } from "@/app/_server/action";
import { resendDeliveries, retryDeliveries } from "../actions";
import { useConsoleAction } from "./incident-actions.client";

function RowAction<T>({ label, act, done }: { label: string; act: () => Promise<ActionResult<T>>; done: (data: T) => string }) {
  const { pending, run, status } = useConsoleAction();
  return (
    <>
      <button type="button" disabled={pending} onClick={() => run(act, done)}>
        {label}
      </button>
      {status}
    </>
  );
}

/** Resends one dead or delivered delivery (audited), then shows the list again. */
export function ResendButton({ destinationId, deliveryId, status }: { destinationId: number; deliveryId: number; status: string }) {
  return (
    <RowAction
      label="Resend"
      act={() => resendDeliveries({ destinationId, deliveryId, filter: { status } })}
      done={({ resent }) => (resent ? "Resending." : "Nothing to resend.")}
    />
  );
}

/** Sends one pending delivery now, as the circuit's probe if it is open (audited). */
export function RetryButton({ destinationId, deliveryId }: { destinationId: number; deliveryId: number }) {
  return (
    <RowAction
      label="Retry now"
      act={() => retryDeliveries({ destinationId, deliveryId })}
      done={({ probed }) => (probed ? "Sending now, as the circuit's probe." : "Sending now.")}
    />
  );
}
