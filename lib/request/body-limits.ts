// Bodies the web process takes. Every endpoint reads at most its limit before parsing anything
// (webhooks: WEBHOOK_BODY_LIMIT_BYTES; next-auth and the host API: their routes), so no request can
// make the web process buffer or parse tens of megabytes.

/** next-auth's sign-in and sign-out forms are a few hundred bytes. */
export const AUTH_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * Server actions (Next reads them up to this, see next.config.ts). The largest is the signature
 * debugger's, a 1 MiB body that grows when the action encodes it.
 */
export const SERVER_ACTION_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export type BodyRefusal = { status: 411 | 413; error: string };

/**
 * Refuses, before the framework sees it, a body no endpoint would take: a declared length past every
 * limit, and on console paths (pages and their server actions) one past the action limit or one
 * without a declared length. Browsers always declare the length of a form or action post; Next would
 * read a chunked action body up to its limit and answer 500. Node then delivers no more bytes than
 * declared.
 */
export function refuseBody(
  request: { method?: string; url?: string; headers: Record<string, string | string[] | undefined> },
  webhookLimitBytes: number,
): BodyRefusal | null {
  const declaredHeader = request.headers["content-length"];
  const declared = typeof declaredHeader === "string" ? Number(declaredHeader) : Number.NaN;
  const tooLarge: BodyRefusal = { status: 413, error: "request body too large" };
  if (declared > Math.max(webhookLimitBytes, SERVER_ACTION_BODY_LIMIT_BYTES)) return tooLarge;
  if ((request.url ?? "/").startsWith("/api/") || request.method === "GET" || request.method === "HEAD") return null;
  if (declared > SERVER_ACTION_BODY_LIMIT_BYTES) return tooLarge;
  if (request.headers["transfer-encoding"] !== undefined && !Number.isFinite(declared)) {
    return { status: 411, error: "a console request body must declare its Content-Length" };
  }
  return null;
}
