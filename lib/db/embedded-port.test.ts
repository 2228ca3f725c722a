import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMBEDDED_DEFAULT_PORT, embeddedPort, explainStartFailure, freePort } from "./embedded";

let busy: Server;
let busyPort: number;

beforeAll(async () => {
  busyPort = await freePort();
  busy = createServer();
  await new Promise<void>((done) => busy.listen(busyPort, "127.0.0.1", done));
});
afterAll(async () => new Promise<void>((done) => busy.close(() => done())));

describe("embedded PostgreSQL port", () => {
  it("uses the port asked for when it is free", async () => {
    const free = await freePort();
    expect(await embeddedPort(free)).toBe(free);
  });

  it("refuses a taken port with a message that says what to do", async () => {
    await expect(embeddedPort(busyPort)).rejects.toThrow(
      `EMBEDDED_POSTGRES_PORT=${busyPort} is already in use by another program: choose a free port, or unset it to use ${EMBEDDED_DEFAULT_PORT} (or any free port)`,
    );
  });

  it("without a port asked for, takes the default or any free one", async () => {
    expect(await embeddedPort(undefined)).toBeGreaterThan(0);
  });
});

describe("explainStartFailure", () => {
  it("turns root's EACCES into one line naming the cause and the way out", () => {
    const error = explainStartFailure(new Error("spawn /root/app/node_modules/.../initdb EACCES"), "/root/app/.data/postgres");
    if (process.getuid?.() === 0) {
      expect(error.message).toMatch(
        /^the embedded PostgreSQL runs as the "postgres" user when started as root, and that user can't reach \/root\/app\/\.data\/postgres/,
      );
      expect(error.message).toContain("set DATABASE_URL");
    } else {
      expect(error.message).toBe("spawn /root/app/node_modules/.../initdb EACCES");
    }
    expect(explainStartFailure(new Error("other"), "/x").message).toBe("other");
  });
});
