import { listAudit, type AuditRow } from "../audit/list-audit";
import { AUDIT_ACTIONS, type AuditAction } from "../audit/record-audit";
import type { Queryable } from "../db/pool";
import { parseRowId } from "../request/input-schemas";

const PAGE_SIZE = 100;

export type AuditView =
  | { ok: false }
  | {
      ok: true;
      rows: AuditRow[];
      actions: readonly AuditAction[];
      /** The action filtered on, when the link names a known one. */
      action: AuditAction | undefined;
      before: number | undefined;
      nextBefore: number | null;
    };

/** A page of the audit log from the page's URL (`before`: an entry id, `action`: one to show); a bad page marker is not ok. */
export async function getAuditView(db: Queryable, params: { before?: string; action?: string }): Promise<AuditView> {
  const action = AUDIT_ACTIONS.find((known) => known === params.action);
  const before = params.before === undefined ? undefined : parseRowId(params.before);
  if (before === null) return { ok: false };
  const page = await listAudit(db, { before, action, limit: PAGE_SIZE });
  return { ok: true, rows: page.rows, actions: AUDIT_ACTIONS, action, before, nextBefore: page.nextBefore };
}
