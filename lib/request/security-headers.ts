// Response headers that keep the console's pages from being framed, sniffed or made to run scripts
// they didn't ship. Scripts: only Next's own, carrying the per-request nonce ('strict-dynamic' lets
// them load their chunks). Styles allow inline: React `style` attributes can't carry a nonce, and CSS
// can't run code.

export type PolicyOptions = { nonce: string; development: boolean; https: boolean };

/** The Content-Security-Policy for a page rendered with this nonce. */
export function contentSecurityPolicy({ nonce, development, https }: PolicyOptions): string {
  return [
    "default-src 'self'",
    // React reconstructs server error stacks with eval in development only.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** A fresh nonce for one response. */
export function createNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

/** Headers for every response, pages and API alike. */
export const STATIC_SECURITY_HEADERS: ReadonlyArray<{ key: string; value: string }> = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  // For browsers that predate CSP's frame-ancestors.
  { key: "X-Frame-Options", value: "DENY" },
];

/** HSTS, only when the public URL is https (a browser would otherwise refuse plain-http trials). */
export function transportSecurityHeader(https: boolean): string | null {
  return https ? "max-age=31536000; includeSubDomains" : null;
}
