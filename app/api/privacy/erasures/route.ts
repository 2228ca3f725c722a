import { NextResponse } from "next/server";
import { requireApiToken } from "@/app/_server/api-token";
import { withErrors } from "@/app/_server/route-handler";
import { providersFor } from "@/lib/auth/api-token";
import { startErasure } from "@/lib/erasure/erasures";
import { subjectSchema } from "@/lib/erasure/find-subject";
import { AppError } from "@/lib/errors/app-error";
import { readJsonWithLimit } from "@/lib/request/read-body";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/**
 * The host asks for a data subject's erasure: `{"email"|"customerId"|"document": ..., "provider"?: ...}`
 * -> 202 {"id"}; a worker runs it, GET /api/privacy/erasures/{id} follows it. A token scoped to some
 * gateways may erase only a customer id of one of them (an e-mail or a document spans gateways).
 */
export const POST = withErrors(async (request: Request) => {
  const token = requireApiToken(request);
  const runtime = webRuntime();
  const subject = subjectSchema.parse(await readJsonWithLimit(request, runtime.config.bodyLimitBytes));
  if (token.providers && !subject.provider) throw new AppError("FORBIDDEN", "this token is scoped to some gateways: name the provider");
  if (subject.provider) providersFor(token, [subject.provider]);
  const id = await startErasure(
    {
      pool: runtime.pool,
      boss: await runtime.boss(),
      archiveDir: runtime.config.retention.archiveDir,
      hashKey: runtime.config.privacyHashKey,
    },
    subject,
    { name: "api" },
  );
  return NextResponse.json({ id: String(id) }, { status: 202 });
});
