import { z } from "zod";
import { previewErasure as preview, startErasure as start } from "../erasure/erasures";
import { exportSubject as exportOf } from "../erasure/export-subject";
import { subjectIdentifier, subjectSchema, type SubjectKind } from "../erasure/find-subject";
import { AppError } from "../errors/app-error";
import { consoleAction, type ConsoleRuntime } from "./console-action";

// A data subject's requests from the console (admin): the export, the erasure's dry run, and the
// erasure itself, the same lib/erasure calls the CLI and the host API make. The identifier travels
// in the action's body, never in a URL (no page address, history or access log holds it).

const SUBJECT_KINDS = ["email", "customerId", "document"] as const satisfies readonly SubjectKind[];

/** The console's subject form: which identifier, its value, and the gateway a customer id is of. */
export const consoleSubjectSchema = z
  .object({ kind: z.enum(SUBJECT_KINDS), value: z.string().max(320), provider: z.string().max(30).optional() })
  .transform(({ kind, value, provider }, context) => {
    const parsed = subjectSchema.safeParse({ [kind]: value, provider: provider || undefined });
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) context.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  });

/** The word that confirms an erasure, besides the identifier itself. */
export const ERASE_WORD = "ERASE";

const erasureDeps = ({ pool, config }: ConsoleRuntime) => ({
  pool,
  archiveDir: config.retention.archiveDir,
  hashKey: config.privacyHashKey,
});

/** Everything stored about the subject, as the CLI prints it (the file the admin downloads), and how much of each. */
export const exportSubject = consoleAction(z.object({ subject: consoleSubjectSchema }), async (runtime, { subject }, { user, ip }) => {
  const found = await exportOf(erasureDeps(runtime), subject, { name: user.email, ip });
  return {
    json: JSON.stringify(found, null, 2),
    summary: {
      identifiers: found.identifiers.length,
      payments: found.payments.length,
      events: found.events.length,
      changes: found.changes.length,
      deliveries: found.deliveries.length,
      archiveEntries: found.archiveEntries.length,
      signatureFailures: found.signatureFailures.length,
      mentions: Object.values(found.mentions).reduce((sum, rows) => sum + rows.length, 0),
    },
  };
});

/** The erasure's dry run: what it would change now, changing nothing. */
export const previewErasure = consoleAction(z.object({ subject: consoleSubjectSchema }), async (runtime, { subject }) =>
  preview(erasureDeps(runtime), subject),
);

/**
 * Starts the subject's erasure as a job once the admin typed the identifier (or ERASE): the row is
 * the one a host's request records, and the worker's job audits it when it ends.
 */
export const startErasure = consoleAction(
  z.object({ subject: consoleSubjectSchema, confirmation: z.string().max(320) }),
  async (runtime, { subject, confirmation }, { user }) => {
    const typed = confirmation.trim();
    if (typed !== ERASE_WORD && typed !== subjectIdentifier(subject).value) {
      throw new AppError("BAD_REQUEST", `type the identifier or ${ERASE_WORD} to confirm the erasure`);
    }
    const id = await start({ ...erasureDeps(runtime), boss: await runtime.boss() }, subject, { name: user.email });
    return { id };
  },
);
