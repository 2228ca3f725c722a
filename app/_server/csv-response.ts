import { recordAudit } from "@/lib/audit/record-audit";
import type { UserAccount } from "@/lib/auth/users";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { clientIp } from "./auth";

/**
 * A CSV download streamed from `lines` as the client reads it (the next chunk is read only when the
 * client has taken the last), after an audit row saying who exported what with which filter. UTF-8
 * behind a byte order mark: without one, Excel reads the file in the system's code page ("joÃ£o").
 */
export async function csvDownload(
  request: Request,
  user: UserAccount,
  what: "events" | "payments",
  filter: Record<string, unknown>,
  lines: AsyncGenerator<string>,
  fileName?: string,
): Promise<Response> {
  await recordAudit(webRuntime().pool, {
    actor: user.email,
    action: "export",
    ip: clientIp(request.headers),
    details: { what, role: user.role, filter },
  });
  const encoder = new TextEncoder();
  let chunk = "\ufeff";
  const body = new ReadableStream<Uint8Array>({
    // Lines go out in chunks of about 64 KiB: one write per line made a million-row export
    // spend its time in per-chunk overhead.
    async pull(controller) {
      while (chunk.length < 65_536) {
        const next = await lines.next();
        if (next.done) {
          if (chunk) controller.enqueue(encoder.encode(chunk));
          controller.close();
          return;
        }
        chunk += next.value;
      }
      controller.enqueue(encoder.encode(chunk));
      chunk = "";
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(":", "");
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${fileName ?? `${what}-${stamp}.csv`}"`,
      "cache-control": "no-store",
    },
  });
}
