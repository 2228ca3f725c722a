import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

// AES-256-GCM under a key derived (HKDF-SHA256) from a configured secret and the purpose, so one
// secret serves several uses without one's ciphertexts opening under another. Stored as
// "v1.<iv>.<tag>.<ciphertext>", base64url.

// Derived once per (secret, purpose): a process opening thousands of sealed values (the gateway
// accounts' cache) would otherwise run HKDF for each. A process has a handful of secrets.
const derived = new Map<string, Buffer>();

function keyFor(secret: string, purpose: string): Buffer {
  const id = `${purpose}\u0000${secret}`;
  let key = derived.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), `webhook-inbox ${purpose}`, 32));
    derived.set(id, key);
  }
  return key;
}

export function seal(secret: string, purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFor(secret, purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), body].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
}

/** The sealed text, or null when it was sealed under another secret or purpose, or tampered with. */
export function open(secret: string, purpose: string, sealed: string): string | null {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFor(secret, purpose), Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
