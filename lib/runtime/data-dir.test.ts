import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { devDataDir, launchDataDir } from "./data-dir";

function checkout(): { cwd: string; xdg: string } {
  const root = mkdtempSync(join(tmpdir(), "inbox-data-dir-"));
  const cwd = join(root, "webhook-inbox");
  mkdirSync(cwd);
  return { cwd, xdg: join(root, "xdg") };
}

describe("the launcher's data directory", () => {
  it("is DATA_DIR when set, resolved against the checkout", () => {
    const { cwd } = checkout();
    expect(launchDataDir("dev", { dataDir: "mine" }, cwd)).toEqual({ dataDir: join(cwd, "mine") });
    expect(launchDataDir("start", { dataDir: "/srv/inbox" }, cwd)).toEqual({ dataDir: "/srv/inbox" });
  });

  it("stays .data for npm start", () => {
    const { cwd, xdg } = checkout();
    expect(launchDataDir("start", { xdgDataHome: xdg }, cwd).dataDir).toBe(join(cwd, ".data"));
  });

  it("is outside the checkout for npm run dev, one directory per checkout", () => {
    const { cwd, xdg } = checkout();
    const { dataDir } = launchDataDir("dev", { xdgDataHome: xdg }, cwd);
    expect(dataDir.startsWith(join(xdg, "webhook-inbox", "webhook-inbox-"))).toBe(true);
    expect(dataDir.startsWith(cwd)).toBe(false);
    expect(devDataDir(join(cwd, "..", "other"), { xdgDataHome: xdg, root: false, home: "/home/dev" })).not.toBe(dataDir);
    expect(devDataDir(cwd, { root: false, home: "/home/dev" })).toMatch(
      /^\/home\/dev\/\.local\/share\/webhook-inbox\/webhook-inbox-[0-9a-f]{8}$/,
    );
    expect(devDataDir(cwd, { root: true, home: "/root" })).toMatch(/^\/var\/lib\/webhook-inbox\//);
  });

  it("moves a stopped dev database from an earlier version's .data out of the tree", () => {
    const { cwd, xdg } = checkout();
    mkdirSync(join(cwd, ".data", "postgres"), { recursive: true });
    writeFileSync(join(cwd, ".data", "postgres", "PG_VERSION"), "18\n");
    const choice = launchDataDir("dev", { xdgDataHome: xdg }, cwd);
    expect(choice.note).toMatch(/^moved the development database/);
    expect(existsSync(join(choice.dataDir, "postgres", "PG_VERSION"))).toBe(true);
    expect(existsSync(join(cwd, ".data"))).toBe(false);
  });

  it("leaves a dev database that looks in use where it is, and says so", () => {
    const { cwd, xdg } = checkout();
    mkdirSync(join(cwd, ".data", "postgres"), { recursive: true });
    writeFileSync(join(cwd, ".data", "postgres", "PG_VERSION"), "18\n");
    writeFileSync(join(cwd, ".data", "postgres", "postmaster.pid"), "1\n");
    expect(launchDataDir("dev", { xdgDataHome: xdg }, cwd)).toEqual({
      dataDir: join(cwd, ".data"),
      note: expect.stringMatching(/looks in use/),
    });
  });
});
