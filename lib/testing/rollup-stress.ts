import type { Pool, PoolClient } from "../db/pool";

/** A deterministic stream of numbers in [0, 1), so a writer's choices reproduce. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** A rollup next to the same figures recounted from its base table, both read in one snapshot. */
export type RollupAndTruth = { rollup: unknown[]; truth: unknown[] };

export type RollupStress = {
  writers: number;
  steps: number;
  /** One write of `writer`'s, on its own connection: its rows only, so writers share keys, never rows. */
  write: (client: PoolClient, writer: number, next: () => number) => Promise<void>;
  fold: () => Promise<unknown>;
  folders: number;
  read: (client: PoolClient) => Promise<RollupAndTruth>;
};

/**
 * Writers on connections of their own, a third of their steps in transactions of a few writes (a
 * quarter of those rolled back), while `folders` loops fold the rollup and a reader compares it
 * with the recount in one snapshot again and again: they must be equal at every moment. Returns
 * the snapshots that differed, and how many folds and comparisons ran.
 */
export async function stressRollup(
  pool: Pool,
  stress: RollupStress,
): Promise<{ differed: RollupAndTruth[]; folds: number; reads: number }> {
  let writing = true;
  let folds = 0;
  let reads = 0;
  const differed: RollupAndTruth[] = [];
  const writer = async (index: number) => {
    const next = seededRandom(index + 1);
    const client = await pool.connect();
    try {
      for (let step = 0; step < stress.steps; step++) {
        if (next() < 1 / 3) {
          await client.query("BEGIN");
          for (let i = 0, n = 2 + Math.floor(next() * 2); i < n; i++) await stress.write(client, index, next);
          await client.query(next() < 1 / 4 ? "ROLLBACK" : "COMMIT");
        } else {
          await stress.write(client, index, next);
        }
      }
    } finally {
      client.release();
    }
  };
  const folder = async () => {
    while (writing) {
      await stress.fold();
      folds++;
    }
  };
  const reader = async () => {
    const client = await pool.connect();
    try {
      while (writing) {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
        const read = await stress.read(client);
        await client.query("COMMIT");
        if (JSON.stringify(read.rollup) !== JSON.stringify(read.truth)) differed.push(read);
        reads++;
      }
    } finally {
      client.release();
    }
  };
  const background = [...Array.from({ length: stress.folders }, folder), reader()];
  try {
    await Promise.all(Array.from({ length: stress.writers }, (_, index) => writer(index)));
  } finally {
    writing = false;
    await Promise.all(background);
  }
  return { differed, folds, reads };
}
