import type { Queryable } from "../../db/pool";

// Remembers the nonces of signatures that don't cover the body (see VerifyResult.nonce). Rows older
// than twice the tolerance can't matter any more (their timestamp is refused anyway) and go as new
// ones come in.
const REMEMBER = `
  WITH expired AS (
    DELETE FROM signature_nonces WHERE provider = $1 AND seen_at < now() - make_interval(secs => $4::int * 2)
  )
  INSERT INTO signature_nonces (provider, nonce, event_id) VALUES ($1, $2, $3)
  ON CONFLICT (provider, nonce) DO UPDATE SET nonce = EXCLUDED.nonce
  RETURNING event_id`;

/**
 * Records that `nonce` signed `eventId`; false when it signed another event before (a captured
 * signature replayed with a new body). The same event again (a resend, a retry) is fine.
 */
export async function rememberNonce(
  db: Queryable,
  provider: string,
  nonce: string,
  eventId: string,
  toleranceSeconds: number,
): Promise<boolean> {
  const { rows } = await db.query<{ event_id: string }>(REMEMBER, [provider, nonce, eventId, toleranceSeconds]);
  return rows[0]?.event_id === eventId;
}
