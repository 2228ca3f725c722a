/** Seconds to wait after failed attempt number `attempt` (1-based); the last delay repeats. */
export function retryDelaySeconds(delays: readonly number[], attempt: number): number {
  return delays[Math.min(Math.max(attempt, 1), delays.length) - 1] ?? 0;
}
