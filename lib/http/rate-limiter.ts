/**
 * A token bucket: at most `ratePerSecond` calls per second on average, bursts up to `ratePerSecond`.
 * `acquire` waits for a token; callers queue in order.
 */
export class RateLimiter {
  private tokens: number;
  private last: number;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly ratePerSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = ratePerSecond;
    this.last = now();
  }

  acquire(): Promise<void> {
    const turn = this.tail.then(() => this.take());
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private async take(): Promise<void> {
    for (;;) {
      const now = this.now();
      this.tokens = Math.min(this.ratePerSecond, this.tokens + ((now - this.last) / 1000) * this.ratePerSecond);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000)));
    }
  }
}
