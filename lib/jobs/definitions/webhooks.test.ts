import { describe, expect, it } from "vitest";
import { loadConfig } from "../../config/env";
import { webhooksJob } from "./webhooks";

const workAt = (concurrency: number) => webhooksJob.work(loadConfig({ WORKER_CONCURRENCY: String(concurrency) }));

describe("the webhooks queue's work", () => {
  it("keeps four batches in flight at the default concurrency, two below 64, one when too few for two", () => {
    expect(loadConfig({}).worker.concurrency).toBe(256);
    expect(workAt(256)).toMatchObject({ localConcurrency: 4, batchSize: 64 });
    expect(workAt(64)).toMatchObject({ localConcurrency: 4, batchSize: 16 });
    expect(workAt(32)).toMatchObject({ localConcurrency: 2, batchSize: 16 });
    expect(workAt(1000)).toMatchObject({ localConcurrency: 4, batchSize: 250 });
    expect(workAt(2)).toMatchObject({ localConcurrency: 1, batchSize: 2 });
  });

  it("holds at least the concurrency asked for and at most a batch's rounding more", () => {
    for (let concurrency = 1; concurrency <= 600; concurrency++) {
      const { localConcurrency = 1, batchSize = 1 } = workAt(concurrency);
      expect(localConcurrency * batchSize).toBeGreaterThanOrEqual(concurrency);
      expect(localConcurrency * batchSize).toBeLessThan(concurrency + localConcurrency);
    }
  });
});
