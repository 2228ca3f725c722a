/** The circuit is open: calls are refused until `retryAt`, and the caller should come back then. */
export class CircuitOpenError extends Error {
  override name = "CircuitOpenError";
  constructor(
    readonly target: string,
    readonly retryAt: Date,
  ) {
    super(`circuit for ${target} is open until ${retryAt.toISOString()}`);
  }
}

/**
 * Opens after `failureThreshold` consecutive failures and refuses calls for `cooldownMs`; then lets
 * one trial call through (half-open): success closes it, failure opens it again.
 */
export class CircuitBreaker {
  private failures = 0;
  private openUntil = 0;
  private trialInFlight = false;

  constructor(
    readonly target: string,
    private readonly failureThreshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
    /** Called when the circuit opens (not while it stays open): the alert hook. */
    private readonly onOpen?: () => void,
  ) {}

  get state(): "closed" | "open" | "half_open" {
    if (this.failures < this.failureThreshold) return "closed";
    return this.now() < this.openUntil ? "open" : "half_open";
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    const state = this.state;
    if (state === "open" || (state === "half_open" && this.trialInFlight)) {
      throw new CircuitOpenError(this.target, new Date(Math.max(this.openUntil, this.now() + 1000)));
    }
    const trial = state === "half_open";
    if (trial) this.trialInFlight = true;
    try {
      const result = await call();
      this.failures = 0;
      return result;
    } catch (error) {
      this.failures += 1;
      if (this.failures >= this.failureThreshold) {
        const wasOpen = this.state === "open";
        this.openUntil = this.now() + this.cooldownMs;
        if (!wasOpen) this.onOpen?.();
      }
      throw error;
    } finally {
      if (trial) this.trialInFlight = false;
    }
  }
}
