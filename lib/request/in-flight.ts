/**
 * Counts what is in flight per key (a client's address, an account) in this process, and refuses a
 * new one at once when any of its keys is at its limit: a burst from one client then waits on
 * nothing and holds nothing (no pooled connection, no socket), instead of queueing behind itself.
 */
export class InFlight {
  private readonly counts = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Takes a place under every key, or none if one is full; the release is idempotent. */
  tryAcquire(...keys: string[]): (() => void) | null {
    if (keys.some((key) => (this.counts.get(key) ?? 0) >= this.limit)) return null;
    for (const key of keys) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const key of keys) {
        const left = this.counts.get(key)! - 1;
        if (left === 0) this.counts.delete(key);
        else this.counts.set(key, left);
      }
    };
  }

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}
