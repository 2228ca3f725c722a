import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DEBUGGER_SCHEMES, debugInputSchema, debuggerPrefill, diagnoseSignature } from "./signature-debugger";

const NOW = 1_767_000_000;
const PAYLOAD = '{"id":"evt_1","type":"charge.succeeded"}';
const SECRET = "whsec_dGhpcyBpcyBhIHRlc3Qgc2VjcmV0IGtleSEh";

const hmac = (algorithm: string, key: string | Buffer, content: string, encoding: "hex" | "base64") =>
  createHmac(algorithm, key).update(content).digest(encoding);

function stripe(header: string, payload = PAYLOAD) {
  return diagnoseSignature({ provider: "stripe", payload, secret: SECRET, signatureHeader: header }, NOW, 300);
}

function standard(signature: string, options: { id?: string; timestamp?: string; payload?: string } = {}) {
  return diagnoseSignature(
    {
      provider: "standard",
      payload: options.payload ?? PAYLOAD,
      secret: SECRET,
      webhookId: options.id ?? "msg_1",
      webhookTimestamp: options.timestamp ?? String(NOW),
      signatureHeader: signature,
    },
    NOW,
    300,
  );
}

const decodedKey = Buffer.from(SECRET.slice(6), "base64");

describe("signature debugger, Stripe", () => {
  it.each([
    ["a correct signature", `t=${NOW},v1=${hmac("sha256", SECRET, `${NOW}.${PAYLOAD}`, "hex")}`, "valid"],
    ["a stale timestamp", `t=${NOW - 900},v1=${hmac("sha256", SECRET, `${NOW - 900}.${PAYLOAD}`, "hex")}`, "timestamp"],
    ["a base64 signature", `t=${NOW},v1=${hmac("sha256", SECRET, `${NOW}.${PAYLOAD}`, "base64")}`, "encoding"],
    ["HMAC-SHA1", `t=${NOW},v1=${hmac("sha1", SECRET, `${NOW}.${PAYLOAD}`, "hex")}`, "algorithm"],
    ["the decoded secret as key", `t=${NOW},v1=${hmac("sha256", decodedKey, `${NOW}.${PAYLOAD}`, "hex")}`, "secret"],
    ["the body alone signed", `t=${NOW},v1=${hmac("sha256", SECRET, PAYLOAD, "hex")}`, "payload"],
    [
      "a re-encoded body signed",
      `t=${NOW},v1=${hmac("sha256", SECRET, `${NOW}.${JSON.stringify(JSON.parse(PAYLOAD), null, 2)}`, "hex")}`,
      "payload",
    ],
    ["another secret", `t=${NOW},v1=${hmac("sha256", "whsec_other", `${NOW}.${PAYLOAD}`, "hex")}`, "secret"],
    ["a malformed header", "sha256=abc", "header"],
  ])("names %s", (_name, header, verdict) => {
    const diagnosis = stripe(header);
    expect(diagnosis.verdict).toBe(verdict);
    expect(diagnosis.ok).toBe(verdict === "valid");
    expect(diagnosis.message.length).toBeGreaterThan(10);
  });
});

describe("signature debugger, Standard Webhooks", () => {
  const signed = (key: string | Buffer, content: string, algorithm = "sha256", encoding: "hex" | "base64" = "base64") =>
    `v1,${hmac(algorithm, key, content, encoding)}`;

  it.each([
    ["a correct signature", signed(decodedKey, `msg_1.${NOW}.${PAYLOAD}`), {}, "valid"],
    ["a hex signature", signed(decodedKey, `msg_1.${NOW}.${PAYLOAD}`, "sha256", "hex"), {}, "encoding"],
    ["HMAC-SHA512", signed(decodedKey, `msg_1.${NOW}.${PAYLOAD}`, "sha512"), {}, "algorithm"],
    ["the secret string as key", signed(SECRET, `msg_1.${NOW}.${PAYLOAD}`), {}, "secret"],
    ["the id left out", signed(decodedKey, `${NOW}.${PAYLOAD}`), {}, "payload"],
    ["a future timestamp", signed(decodedKey, `msg_1.${NOW + 900}.${PAYLOAD}`), { timestamp: String(NOW + 900) }, "timestamp"],
    ["milliseconds", signed(decodedKey, `msg_1.${NOW * 1000}.${PAYLOAD}`), { timestamp: String(NOW * 1000) }, "timestamp"],
    ["a missing id", signed(decodedKey, `msg_1.${NOW}.${PAYLOAD}`), { id: "" }, "header"],
  ])("names %s", (_name, signature, options, verdict) => {
    expect(standard(signature, options).verdict).toBe(verdict);
  });
});

describe("signature debugger, a secret pasted with whitespace", () => {
  const withSpace = `${SECRET} \n`;

  it("stripe: calls it whitespace around the secret, not a different secret", () => {
    const header = `t=${NOW},v1=${hmac("sha256", SECRET, `${NOW}.${PAYLOAD}`, "hex")}`;
    const diagnosis = diagnoseSignature({ provider: "stripe", payload: PAYLOAD, secret: withSpace, signatureHeader: header }, NOW, 300);
    expect(diagnosis.verdict).toBe("secret");
    expect(diagnosis.message).toContain("leading or trailing whitespace");
  });

  it("standard: the key is base64-decoded, which skips the whitespace: the signature is valid", () => {
    const header = `v1,${hmac("sha256", Buffer.from(SECRET.slice(6), "base64"), `msg_1.${NOW}.${PAYLOAD}`, "base64")}`;
    const diagnosis = diagnoseSignature(
      {
        provider: "standard",
        payload: PAYLOAD,
        secret: withSpace,
        signatureHeader: header,
        webhookId: "msg_1",
        webhookTimestamp: String(NOW),
      },
      NOW,
      300,
    );
    expect(diagnosis.verdict).toBe("valid");
  });
});

describe("the console's form", () => {
  it("asks, per scheme, for exactly the inputs that scheme's diagnosis reads", () => {
    for (const scheme of DEBUGGER_SCHEMES) {
      const input = {
        provider: scheme.provider,
        payload: PAYLOAD,
        secret: SECRET,
        signatureHeader: "x",
        ...Object.fromEntries(scheme.fields.map((field) => [field.name, "1"])),
      };
      expect(debugInputSchema.safeParse(input).success, scheme.provider).toBe(true);
      for (const field of scheme.fields) {
        const { [field.name]: _left, ...missing } = input as Record<string, string>;
        expect(debugInputSchema.safeParse(missing).success, `${scheme.provider} without ${field.name}`).toBe(false);
      }
    }
  });

  it("is filled from a rejected delivery's stored headers, in its gateway's scheme or the default one", () => {
    expect(debuggerPrefill("standard", { "svix-id": "msg_9", "webhook-timestamp": "17", "svix-signature": "v1,abc" })).toEqual({
      provider: "standard",
      values: { signatureHeader: "v1,abc", webhookId: "msg_9", webhookTimestamp: "17" },
    });
    expect(debuggerPrefill("stripe", { "stripe-signature": "t=1,v1=ab" })).toEqual({
      provider: "stripe",
      values: { signatureHeader: "t=1,v1=ab" },
    });
    expect(debuggerPrefill("zoop", { authorization: "[redacted]" })).toEqual({
      provider: DEBUGGER_SCHEMES[0]!.provider,
      values: { signatureHeader: "" },
    });
  });
});
