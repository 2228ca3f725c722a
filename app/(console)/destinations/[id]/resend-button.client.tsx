"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { resendDeliveries } from "../actions";

/** Resends one dead delivery (audited), then shows the list again. */
export function ResendButton({ destinationId, deliveryId }: { destinationId: number; deliveryId: number }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        disabled={pending}
        onClick={() =>
          startTransition(async () => {
            const result = await resendDeliveries({ destinationId, deliveryId });
            setError(result.ok ? null : result.error);
            router.refresh();
          })
        }
      >
        Resend
      </button>
      {error ? <span role="alert"> {error}</span> : null}
    </>
  );
}
