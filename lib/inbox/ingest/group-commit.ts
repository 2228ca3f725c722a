// Group commit: items submitted while a batch is being written wait for it, then go together in
// the next one, so concurrent deliveries share one statement and one commit. Adaptive: an item with
// nothing in flight is written at once (a lone delivery never waits); one that arrives behind a batch
// waits until that batch is done, or `windowMs` at most, or until `maxBatch` are waiting.

export type GroupCommitOptions = {
  windowMs: number;
  maxBatch: number;
  /** A batch also stops at this many units of `weight` (bytes of bodies), so one statement stays small. */
  maxWeight: number;
  /** Batches written at once; past it, items wait for one to finish (the pool is shared with other work). */
  maxInFlight: number;
};

export type BatchWriter<I, O> = {
  /** Writes the items in one statement; one result per item, in order. */
  write(items: I[]): Promise<O[]>;
  weight(item: I): number;
  /** An error no smaller batch would avoid (the database is away): every item fails with it, unsplit. */
  failsEveryone(error: unknown): boolean;
};

type Waiting<I, O> = { item: I; resolve: (result: O) => void; reject: (error: unknown) => void };

export type GroupCommitter<I, O> = { submit(item: I): Promise<O> };

export function createGroupCommitter<I, O>(writer: BatchWriter<I, O>, options: GroupCommitOptions): GroupCommitter<I, O> {
  const waiting: Waiting<I, O>[] = [];
  let waitingWeight = 0;
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;

  // A batch that fails is split in halves, each written on its own, down to single items: only the
  // item that fails alone gets the error.
  async function writeSplitting(batch: Waiting<I, O>[]): Promise<void> {
    let results: O[];
    try {
      results = await writer.write(batch.map((entry) => entry.item));
    } catch (error) {
      if (batch.length === 1 || writer.failsEveryone(error)) {
        for (const entry of batch) entry.reject(error);
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await writeSplitting(batch.slice(0, half));
      await writeSplitting(batch.slice(half));
      return;
    }
    batch.forEach((entry, index) => entry.resolve(results[index]!));
  }

  function takeBatch(): Waiting<I, O>[] {
    let count = 0;
    let weight = 0;
    while (count < waiting.length && count < options.maxBatch) {
      const next = writer.weight(waiting[count]!.item);
      if (count > 0 && weight + next > options.maxWeight) break;
      weight += next;
      count++;
    }
    waitingWeight -= weight;
    return waiting.splice(0, count);
  }

  function finished(): void {
    inFlight--;
    // Those that queued behind this batch go now: the commit they waited for is done.
    if (waiting.length > 0) flush();
  }

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    while (waiting.length > 0 && inFlight < options.maxInFlight) {
      const batch = takeBatch();
      inFlight++;
      writeSplitting(batch).then(finished, finished);
    }
    // Any still waiting go when a batch in flight finishes.
  }

  function arm(): void {
    timer ??= setTimeout(flush, options.windowMs);
  }

  return {
    submit(item) {
      return new Promise<O>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        waitingWeight += writer.weight(item);
        if (inFlight === 0 || waiting.length >= options.maxBatch || waitingWeight >= options.maxWeight) flush();
        else arm();
      });
    },
  };
}
