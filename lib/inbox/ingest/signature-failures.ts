import type { Queryable } from "../../db/pool";
import { sha256Hex } from "../../crypto/digest";

const EXCERPT_BYTES = 2048;

export type SignatureFailureInput = {
  provider: string;
  /** The account whose URL it came to (`default`: the gateway's own URL). */
  account: string;
  reason: string;
  headers: Record<string, string>;
  rawBody: Buffer;
  /** Rows kept; older ones are deleted as new ones arrive, so a flood can't fill the disk. */
  max: number;
};

/** Records a rejected webhook for the signature debugger: never an event, truncated, capped. */
export async function recordSignatureFailure(db: Queryable, input: SignatureFailureInput): Promise<void> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO signature_failures (provider, gateway_account, reason, headers, body_excerpt, body_sha256, body_bytes)
     VALUES ($1, $7, $2, $3::jsonb, $4, $5, $6) RETURNING id`,
    [
      input.provider,
      input.reason.slice(0, 200),
      JSON.stringify(input.headers),
      // Invalid UTF-8 and NULs become U+FFFD / are dropped: text columns can't hold them.
      input.rawBody.subarray(0, EXCERPT_BYTES).toString("utf8").replaceAll("\u0000", ""),
      sha256Hex(input.rawBody),
      input.rawBody.length,
      input.account,
    ],
  );
  const newest = rows[0]!.id;
  await db.query("DELETE FROM signature_failures WHERE id <= $1", [newest - input.max]);
}

export type SignatureFailureRow = {
  id: number;
  provider: string;
  /** Null for a refusal recorded before the account was kept. */
  account: string | null;
  receivedAt: Date;
  reason: string;
  headers: Record<string, string>;
  bodyExcerpt: string;
  bodySha256: string;
  bodyBytes: number;
};

const FAILURE_COLUMNS = `id, provider, gateway_account AS account, received_at AS "receivedAt", reason, headers, body_excerpt AS "bodyExcerpt",
  body_sha256 AS "bodySha256", body_bytes AS "bodyBytes"`;

/** Recent rejected webhooks, newest first (for the signature debugger's list). */
export async function listSignatureFailures(db: Queryable, limit = 50): Promise<SignatureFailureRow[]> {
  const { rows } = await db.query<SignatureFailureRow>(
    `SELECT ${FAILURE_COLUMNS} FROM signature_failures ORDER BY received_at DESC, id DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

export async function getSignatureFailure(db: Queryable, id: number): Promise<SignatureFailureRow | null> {
  const { rows } = await db.query<SignatureFailureRow>(`SELECT ${FAILURE_COLUMNS} FROM signature_failures WHERE id = $1`, [id]);
  return rows[0] ?? null;
}
