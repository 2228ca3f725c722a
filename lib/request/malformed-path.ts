/**
 * A request target no route can take: a path whose percent-encoding does not decode (a lone "%FF" is
 * no UTF-8) or a path or query holding an encoded NUL, which PostgreSQL refuses in text. Answered
 * 400 at the server's door instead of failing as a 500 wherever it is first decoded or stored.
 */
export function isMalformedTarget(target: string): boolean {
  const queryAt = target.indexOf("?");
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  try {
    if (decodeURIComponent(path).includes("\0")) return true;
  } catch {
    return true;
  }
  return queryAt >= 0 && /%00/.test(target.slice(queryAt));
}

/** The 400 answer's body. */
export const MALFORMED_TARGET = {
  error: "malformed request target: an encoded NUL, or percent-encoding that does not decode",
  code: "BAD_REQUEST",
};
