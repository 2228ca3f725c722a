import { recordAudit, type Actor } from "../audit/record-audit";
import type { Queryable } from "../db/pool";
import { getEvent } from "../inbox/queries/get-event";

export type RawBodyDownload = { kind: "found"; provider: string; id: number; rawBody: Buffer } | { kind: "missing" } | { kind: "archived" };

/**
 * The exact bytes a gateway sent, for an unmasked role to download. The bytes are unmasked (card
 * numbers, e-mails), so every download is audited with who and from where.
 */
export async function downloadRawBody(db: Queryable, id: number, actor: Actor): Promise<RawBodyDownload> {
  const event = await getEvent(db, id);
  if (!event) return { kind: "missing" };
  if (!event.rawBody) return { kind: "archived" };
  await recordAudit(db, {
    actor: actor.name,
    action: "raw_download",
    ip: actor.ip,
    details: { eventId: event.id, provider: event.provider },
  });
  return { kind: "found", provider: event.provider, id: event.id, rawBody: event.rawBody };
}
