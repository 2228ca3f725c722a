import { describe, expect, it } from "vitest";
import { createGroupCommitter, type GroupCommitOptions } from "./group-commit";

// The committer's own rules, on a writer that records its batches; the statement it drives is
// tested against PostgreSQL in store-event.db.test.ts.

type Gate = { open: () => void; opened: Promise<void> };
function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((done) => (open = done));
  return { open, opened };
}

function recordingWriter(options: { hold?: Gate; failWhen?: (items: string[]) => boolean; failsEveryone?: boolean } = {}) {
  const batches: string[][] = [];
  return {
    batches,
    writer: {
      async write(items: string[]) {
        batches.push(items);
        await options.hold?.opened;
        if (options.failWhen?.(items)) throw new Error(`failed: ${items.join(",")}`);
        return items.map((item) => `stored ${item}`);
      },
      weight: (item: string) => item.length,
      failsEveryone: () => options.failsEveryone ?? false,
    },
  };
}

const OPTIONS: GroupCommitOptions = { windowMs: 60_000, maxBatch: 64, maxWeight: 1_000_000, maxInFlight: 4 };

describe("group commit", () => {
  it("writes a lone item at once, without waiting for the window", async () => {
    const { writer, batches } = recordingWriter();
    const committer = createGroupCommitter(writer, OPTIONS);
    const started = performance.now();
    expect(await committer.submit("a")).toBe("stored a");
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(batches).toEqual([["a"]]);
  });

  it("answers no item before the write holding it is done, and writes those that came behind it together", async () => {
    const hold = gate();
    const { writer, batches } = recordingWriter({ hold });
    const committer = createGroupCommitter(writer, OPTIONS);
    const answered: string[] = [];
    const results = ["a", "b", "c", "d"].map((item) => committer.submit(item).then((result) => answered.push(result)));
    await new Promise((done) => setTimeout(done, 20));
    expect(batches).toEqual([["a"]]);
    expect(answered).toEqual([]);
    hold.open();
    await Promise.all(results);
    expect(batches).toEqual([["a"], ["b", "c", "d"]]);
    expect(answered).toEqual(["stored a", "stored b", "stored c", "stored d"]);
  });

  it("starts a waiting batch after the window even while another is in flight, up to the batches allowed at once", async () => {
    const hold = gate();
    const { writer, batches } = recordingWriter({ hold });
    const committer = createGroupCommitter(writer, { ...OPTIONS, windowMs: 5, maxInFlight: 2 });
    const results = [committer.submit("a"), committer.submit("b")];
    await new Promise((done) => setTimeout(done, 50));
    results.push(committer.submit("c"));
    await new Promise((done) => setTimeout(done, 50));
    expect(batches).toEqual([["a"], ["b"]]);
    hold.open();
    await Promise.all(results);
    expect(batches).toEqual([["a"], ["b"], ["c"]]);
  });

  it("stops a batch at its size and at its weight", async () => {
    const hold = gate();
    const { writer, batches } = recordingWriter({ hold });
    const committer = createGroupCommitter(writer, { ...OPTIONS, maxBatch: 2, maxWeight: 4 });
    const results = ["a", "b", "c", "d", "eeee", "f"].map((item) => committer.submit(item));
    hold.open();
    await Promise.all(results);
    expect(batches).toEqual([["a"], ["b", "c"], ["d"], ["eeee"], ["f"]]);
  });

  it("splits a failing batch so that only the item that fails alone gets the error", async () => {
    const hold = gate();
    const { writer } = recordingWriter({ hold, failWhen: (items) => items.includes("bad") });
    const committer = createGroupCommitter(writer, OPTIONS);
    const first = committer.submit("a");
    const rest = ["b", "bad", "c", "d", "e"].map((item) => committer.submit(item).then(String, (error: Error) => error.message));
    hold.open();
    expect(await first).toBe("stored a");
    expect(await Promise.all(rest)).toEqual(["stored b", "failed: bad", "stored c", "stored d", "stored e"]);
  });

  it("fails every item of the batch at once when no smaller batch would fare better (the database is away)", async () => {
    const { writer, batches } = recordingWriter({ failWhen: () => true, failsEveryone: true });
    const committer = createGroupCommitter(writer, OPTIONS);
    const outcomes = await Promise.all(["a", "b", "c"].map((item) => committer.submit(item).then(String, () => "rejected")));
    expect(outcomes).toEqual(["rejected", "rejected", "rejected"]);
    expect(batches).toEqual([["a"], ["b", "c"]]);
  });
});
