import type { Pool } from "../db/pool";
import { metrics } from "../observability/metrics";
import { sequenceChanges } from "./sequence-changes";

// One watcher of the feed's head per process, however many readers wait on it: while any does, it
// numbers new changes and reads the head every TICK_MS (two statements per tick for the process),
// and wakes only the readers a new change matches. Each waiting reader used to poll on its own
// (two statements every 200 ms each): a thousand of them took every pooled connection.
//
// Polling, not LISTEN/NOTIFY: a NOTIFY from the processing transactions would serialize their
// commits on PostgreSQL's notification queue lock, and changes are numbered (and so readable) only
// by a sequencer, which a notification could not run for us.
const TICK_MS = 250;

// Past this many new positions in one tick, the watcher doesn't look at what they are: it wakes
// everyone; so does an erasure's change (it lists payments of several gateways and statuses).
const MAX_KINDS_RANGE = 10_000;

const READ_HEAD = `
  SELECT h.last_position AS head,
         CASE WHEN $1::bigint IS NOT NULL AND h.last_position - $1 <= $2
                   AND NOT EXISTS (SELECT 1 FROM payment_changes e
                                    WHERE e.feed_position > $1 AND e.feed_position <= h.last_position AND e.erasure IS NOT NULL) THEN
           (SELECT COALESCE(json_agg(DISTINCT jsonb_build_array(c.provider, c.status)), '[]')
              FROM payment_changes c WHERE c.feed_position > $1 AND c.feed_position <= h.last_position)
         END AS kinds
    FROM payment_feed_head h`;

/** Which changes a waiting reader wants (its filters). */
export type WantedChanges = (provider: string, status: string) => boolean;

type Waiting = { after: number; wants: WantedChanges; settle: (changed: boolean) => void };

export class FeedWaiter {
  private readonly waiting = new Set<Waiting>();
  private knownHead: number | null = null;
  private ticking: NodeJS.Timeout | null = null;

  constructor(private readonly pool: Pool) {}

  /**
   * Waits until a change this reader wants is numbered past `after` (true: read the page again), or
   * until `deadline` or an abort (false). `after` moves, in `cursor()`, past changes it doesn't want.
   */
  wait(after: number, wants: WantedChanges, deadline: number, signal?: AbortSignal): { changed: Promise<boolean>; cursor: () => number } {
    let entry!: Waiting;
    const changed = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => entry.settle(false), Math.max(0, deadline - Date.now()));
      const onAbort = () => entry.settle(false);
      signal?.addEventListener("abort", onAbort, { once: true });
      entry = {
        after,
        wants,
        settle: (value) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          if (this.waiting.delete(entry)) metrics().feedWaitingReads.dec();
          resolve(value);
        },
      };
    });
    if (signal?.aborted) entry.settle(false);
    else {
      this.waiting.add(entry);
      metrics().feedWaitingReads.inc();
      this.ticking ??= setTimeout(() => this.tick(), TICK_MS);
    }
    return { changed, cursor: () => entry.after };
  }

  private tick(): void {
    this.readHead()
      .then(
        (head) => this.wake(head.head, head.kinds),
        // The database is away: the readers keep waiting (their deadlines still hold); the next tick tries again.
        () => undefined,
      )
      .finally(() => {
        this.ticking = this.waiting.size > 0 ? setTimeout(() => this.tick(), TICK_MS) : null;
      });
  }

  private async readHead(): Promise<{ head: number; kinds: [string, string][] | null }> {
    await sequenceChanges(this.pool);
    const { rows } = await this.pool.query<{ head: string; kinds: [string, string][] | null }>(READ_HEAD, [
      this.knownHead,
      MAX_KINDS_RANGE,
    ]);
    return { head: Number(rows[0]!.head), kinds: this.knownHead === null ? null : rows[0]!.kinds };
  }

  private wake(head: number, kinds: [string, string][] | null): void {
    for (const entry of [...this.waiting]) {
      if (entry.after >= head) continue;
      // Changes it may not have read: wake it, unless every new one is of a kind it doesn't want
      // (only known for what lies past the head it had already passed).
      if (kinds === null || entry.after < this.knownHead! || kinds.some(([provider, status]) => entry.wants(provider, status))) {
        entry.settle(true);
      } else entry.after = head;
    }
    this.knownHead = head;
  }
}
