export class BodyTooLargeError extends Error {
  override name = "BodyTooLargeError";
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}

/**
 * Reads a request (or response) body into memory, refusing more than `limit` bytes: a declared
 * Content-Length over the limit is refused before reading, and a stream that grows past it is cancelled mid-way.
 */
export async function readBodyWithLimit(request: Pick<Request, "headers" | "body">, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** Request headers as a plain object with lower-case names (what drivers read). */
export function headerMap(headers: Headers): Record<string, string> {
  const map: Record<string, string> = {};
  headers.forEach((value, name) => {
    map[name.toLowerCase()] = value;
  });
  return map;
}
