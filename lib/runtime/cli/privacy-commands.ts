import { z } from "zod";
import { executeErasure, previewErasure, startErasure } from "../../erasure/erasures";
import { exportSubject } from "../../erasure/export-subject";
import { subjectSchema } from "../../erasure/find-subject";
import { cliActor, command, flag, option } from "./cli-command";

// A data subject's requests (docs/privacy.md): what is stored about them, and their erasure.

const subjectOptions = {
  email: option(z.string().optional(), { arg: "E" }),
  "customer-id": option(z.string().optional(), { arg: "ID" }),
  document: option(z.string().optional(), { arg: "D", help: "the subject: an e-mail, a gateway's customer id or a CPF/CNPJ" }),
  provider: option(z.string().optional(), { arg: "P", help: "the gateway a customer id is of" }),
};

const toSubject = (values: { email?: string; "customer-id"?: string; document?: string; provider?: string }) =>
  subjectSchema.parse({ email: values.email, customerId: values["customer-id"], document: values.document, provider: values.provider });

export const privacyExportCommand = command({
  name: "privacy:export",
  summary: "print, as JSON, everything stored about a data subject",
  options: z.object(subjectOptions),
  run: async (runtime, values) => {
    const deps = { pool: runtime.pool(), archiveDir: runtime.config.retention.archiveDir, hashKey: runtime.config.privacyHashKey };
    console.log(JSON.stringify(await exportSubject(deps, toSubject(values), { name: cliActor() }), null, 2));
    return 0;
  },
});

export const privacyEraseCommand = command({
  name: "privacy:erase",
  summary: "erase a data subject everywhere (the financial facts stay); resumes an interrupted erasure",
  options: z.object({ ...subjectOptions, "dry-run": flag("print what would change, change nothing") }),
  run: async (runtime, values) => {
    const subject = toSubject(values);
    const pool = runtime.pool();
    if (values["dry-run"]) {
      const preview = await previewErasure({ pool, archiveDir: runtime.config.retention.archiveDir }, subject);
      console.log(
        JSON.stringify({ dryRun: true, wouldChange: preview.counts, archives: preview.archives, payments: preview.payments }, null, 2),
      );
      return 0;
    }
    const deps = { pool, archiveDir: runtime.config.retention.archiveDir, hashKey: runtime.config.privacyHashKey };
    // Run here, in the foreground: the row is the same a host's request records, without a job.
    const id = await startErasure(deps, subject, { name: cliActor() });
    const erasure = await executeErasure(deps, id);
    console.log(JSON.stringify(erasure, null, 2));
    return erasure?.status === "done" ? 0 : 1;
  },
});
