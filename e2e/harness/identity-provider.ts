import { execFileSync } from "node:child_process";
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Provider from "oidc-provider";

// A real OpenID Connect provider for the single sign-on tests: panva's oidc-provider (a certified
// implementation nobody here wrote) with its own login and consent pages, over https with a
// certificate made for the run (production refuses a plain-http issuer), one client, and the
// accounts a test gives it. It can rewrite the ID token of its token answers, to play a tampered or
// misdirected token.

export type IdentityAccount = { email: string; email_verified?: boolean; name?: string; groups?: string[] };

export type IdentityProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The certificate the provider serves (for the app: NODE_EXTRA_CA_CERTS). */
  certificateFile: string;
  certificate: Buffer;
  /** Accounts by login (the subject); a test may change one between sign-ins. */
  accounts: Map<string, IdentityAccount>;
  /** Opens for sign-ins once the console's callback URL is known. */
  registerClient: (redirectUri: string) => void;
  /** Rewrites the ID token of each token answer until set back to null. */
  rewriteIdTokens: (rewrite: ((idToken: string) => string) | null) => void;
  /** The provider's own signing key, for tokens a test forges as if the provider signed them. */
  signingKey: { kid: string; privateKey: KeyObject };
  close: () => Promise<void>;
};

export const base64url = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

/** A compact JWS (RS256) over a header and payload. */
export function signJwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const input = `${base64url(header)}.${base64url(payload)}`;
  return `${input}.${sign("sha256", Buffer.from(input), key).toString("base64url")}`;
}

export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown>; signature: string } {
  const [header, payload, signature] = token.split(".");
  const parse = (part: string | undefined) => JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
  return { header: parse(header), payload: parse(payload), signature: signature ?? "" };
}

export async function startIdentityProvider(accounts: Record<string, IdentityAccount>): Promise<IdentityProvider> {
  const dir = mkdtempSync(join(tmpdir(), "webhook-inbox-idp-"));
  const certificateFile = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ].concat(["-keyout", join(dir, "key.pem"), "-out", certificateFile]),
    { stdio: "ignore" },
  );
  const certificate = readFileSync(certificateFile);
  let handle: ((request: IncomingMessage, response: ServerResponse) => void) | null = null;
  const server: Server = createServer({ key: readFileSync(join(dir, "key.pem")), cert: certificate }, (request, response) => {
    if (handle) return handle(request, response);
    response.writeHead(503).end("not registered yet");
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const issuer = `https://127.0.0.1:${(server.address() as { port: number }).port}`;

  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = "idp-test-key";
  const known = new Map(Object.entries(accounts));
  const clientId = "webhook-inbox-console";
  const clientSecret = randomBytes(24).toString("base64url");
  let rewrite: ((idToken: string) => string) | null = null;

  return {
    issuer,
    clientId,
    clientSecret,
    certificateFile,
    certificate,
    accounts: known,
    signingKey: { kid, privateKey },
    rewriteIdTokens: (next) => void (rewrite = next),
    registerClient(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            response_types: ["code"],
            grant_types: ["authorization_code"],
            token_endpoint_auth_method: "client_secret_basic",
          },
        ],
        jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" }] },
        cookies: { keys: [randomBytes(32).toString("hex")] },
        // Scopes and the claims each brings. As the specification has it for the code flow, they
        // come from the userinfo endpoint, not in the ID token (conformIdTokenClaims, the default).
        claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
        pkce: { required: () => true },
        ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
        async findAccount(_context, sub) {
          const account = known.get(sub);
          return account ? { accountId: sub, claims: async () => ({ sub, ...known.get(sub) }) } : undefined;
        },
      });
      provider.use(async (context, next) => {
        await next();
        const body = context.body as { id_token?: string } | undefined;
        if (rewrite && context.path === "/token" && typeof body?.id_token === "string")
          context.body = { ...body, id_token: rewrite(body.id_token) };
      });
      const serve = provider.callback();
      handle = (request, response) => {
        serve(request, response).catch(() => response.writeHead(500).end());
      };
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** A request to the provider trusting its certificate (Node's fetch can't be given a CA). */
export function providerRequest(
  provider: IdentityProvider,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingMessage["headers"]; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: init.method ?? "GET", headers: init.headers, ca: provider.certificate }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    outgoing.on("error", reject);
    outgoing.end(init.body);
  });
}
