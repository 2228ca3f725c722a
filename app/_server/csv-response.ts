import { recordAudit } from "@/lib/audit/record-audit";
import type { UserView } from "@/lib/auth/users";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { clientIp } from "./auth";

/**
 * A CSV download streamed from `lines` as the client reads it (the next batch is read only when the
 * client has taken the last), after an audit row saying who exported what with which filter.
 */
export async function csvDownload(
  request: Request,
  user: UserView,
  what: "events" | "payments",
  filter: Record<string, unknown>,
  lines: AsyncGenerator<string>,
): Promise<Response> {
  await recordAudit(webRuntime().pool, {
    actor: user.email,
    action: "export",
    ip: clientIp(request.headers),
    details: { what, role: user.role, filter },
  });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(":", "");
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${what}-${stamp}.csv"`,
      "cache-control": "no-store",
    },
  });
}
