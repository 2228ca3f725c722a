import { AppError } from "../errors/app-error";

export class BodyTooLargeError extends Error {
  override name = "BodyTooLargeError";
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}

/**
 * Reads a body into memory, refusing more than `limit` bytes: a declared Content-Length over the
 * limit is refused before reading, and a stream that grows past it is cancelled mid-way. Takes any
 * byte stream: a web Request's body or node's IncomingMessage (the lean ingest server).
 */
export async function readStreamWithLimit(
  declaredLength: string | null | undefined,
  stream: AsyncIterable<Uint8Array> | null,
  limit: number,
): Promise<Buffer> {
  const declared = Number(declaredLength ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  if (!stream) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Leaving the loop early (the throw) cancels the stream.
  for await (const chunk of stream) {
    total += chunk.byteLength;
    if (total > limit) throw new BodyTooLargeError(limit);
    chunks.push(chunk);
  }
  // One chunk (the usual webhook) is used as is, not copied.
  if (chunks.length === 1) {
    const only = chunks[0]!;
    return Buffer.isBuffer(only) ? only : Buffer.from(only.buffer, only.byteOffset, only.byteLength);
  }
  return Buffer.concat(chunks, total);
}

/** A web Request's (or Response's) body, at most `limit` bytes (see readStreamWithLimit). */
export function readBodyWithLimit(request: Pick<Request, "headers" | "body">, limit: number): Promise<Buffer> {
  // Node's web streams are async iterable; the DOM typings just don't say so.
  const body = request.body as AsyncIterable<Uint8Array> | null;
  return readStreamWithLimit(request.headers.get("content-length"), body, limit);
}

/** A JSON body of at most `limit` bytes: 413 past it, 400 when it is not JSON. */
export async function readJsonWithLimit(request: Pick<Request, "headers" | "body">, limit: number): Promise<unknown> {
  let raw: Buffer;
  try {
    raw = await readBodyWithLimit(request, limit);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new AppError("PAYLOAD_TOO_LARGE", error.message);
    throw error;
  }
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new AppError("BAD_REQUEST", "body must be JSON");
  }
}

/** Request headers as a plain object with lower-case names (what drivers read). */
export function headerMap(headers: Headers): Record<string, string> {
  const map: Record<string, string> = {};
  headers.forEach((value, name) => {
    map[name.toLowerCase()] = value;
  });
  return map;
}
