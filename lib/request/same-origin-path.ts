// Where to go after signing in comes from the URL (`?callbackUrl=`), so it is attacker-controlled:
// only a path on this site may come out, never another host (`//evil`, `/\evil`, `https://evil`,
// tabs or newlines the URL parser strips, encoded slashes and backslashes).

const FALLBACK = "/";
// Any origin will do as a base: what matters is whether the parsed URL kept it.
const BASE = "http://same-origin.invalid";

/**
 * A same-origin path (with query and fragment) for a redirect target, or "/" for anything else. An
 * absolute URL on `ownOrigin` (the public URL's origin) counts as its path.
 */
export function sameOriginPath(value: unknown, ownOrigin?: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2000) return FALLBACK;
  // Backslashes and control characters have no business in a path; browsers read "\" as "/".
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return FALLBACK;
  let candidate = value;
  if (ownOrigin && !value.startsWith("/")) {
    const own = new URL(ownOrigin).origin;
    if (!URL.canParse(value) || new URL(value).origin !== own) return FALLBACK;
    const url = new URL(value);
    candidate = `${url.pathname}${url.search}${url.hash}`;
  }
  if (!candidate.startsWith("/") || candidate.startsWith("//")) return FALLBACK;
  // Decoded once, an encoded "//" or "\" must not turn into a host either.
  let decoded: string;
  try {
    decoded = decodeURIComponent(candidate);
  } catch {
    return FALLBACK;
  }
  if (decoded.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(decoded)) return FALLBACK;
  const url = new URL(candidate, BASE);
  if (url.origin !== BASE) return FALLBACK;
  const result = `${url.pathname}${url.search}${url.hash}`;
  // The parser resolves dot segments after the checks above: "/.//evil", "/%2e//evil" and "/a/..//evil"
  // all come out as "//evil". Judge what comes out, not only what came in.
  if (result.startsWith("//") || new URL(result, BASE).origin !== BASE) return FALLBACK;
  return result;
}
