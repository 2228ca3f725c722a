import type { Queryable } from "../db/pool";
import { getSignatureFailure, listSignatureFailures, type SignatureFailureRow } from "../inbox/ingest/signature-failures";
import { DEBUGGER_SCHEMES, debuggerPrefill, type DebuggerPrefill, type DebuggerScheme } from "../providers/signature-debugger";

/** The debugger's form filled from a rejected webhook: its scheme's fields, the body excerpt stored. */
export type DebuggerFormPrefill = DebuggerPrefill & { payload: string; truncated: boolean };

export type SignaturesView = {
  schemes: readonly DebuggerScheme[];
  /** The rejected webhook the link opens in the debugger, if any. */
  failureId: number | null;
  prefill: DebuggerFormPrefill | null;
  /** Recent rejected webhooks, without their headers or body. */
  failures: Pick<SignatureFailureRow, "id" | "receivedAt" | "provider" | "account" | "reason" | "bodyBytes">[];
};

/** The signature debugger's page: its schemes, recent rejected webhooks, and the one the link opens (`failure`), prefilled. */
export async function getSignaturesView(db: Queryable, failureId: number | null): Promise<SignaturesView> {
  const [failures, failure] = await Promise.all([
    listSignatureFailures(db, 50),
    failureId === null ? Promise.resolve(null) : getSignatureFailure(db, failureId),
  ]);
  return {
    schemes: DEBUGGER_SCHEMES,
    failureId: failure?.id ?? null,
    prefill: failure
      ? {
          ...debuggerPrefill(failure.provider, failure.headers),
          payload: failure.bodyExcerpt,
          truncated: failure.bodyBytes > failure.bodyExcerpt.length,
        }
      : null,
    failures: failures.map(({ id, receivedAt, provider, account, reason, bodyBytes }) => ({
      id,
      receivedAt,
      provider,
      account,
      reason,
      bodyBytes,
    })),
  };
}
