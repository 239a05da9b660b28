// How long the panel waits between attempts to reconnect to its server: soon at first, never hammering it.

export interface BackoffOptions {
  /** Delay before the first retry. */
  initialMs: number;
  /** Ceiling: a local server that restarts should be found again within this. */
  maxMs: number;
  factor: number;
  /** Fraction of the delay randomised away, so several windows do not retry in lockstep. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 200, maxMs: 5_000, factor: 2, jitter: 0.25 };

/**
 * Delay before reconnect attempt `attempt` (0 for the first retry): exponential,
 * capped, with "equal jitter" that only ever shortens the delay by up to
 * `jitter` of it, so the cap holds. `random` is injected for tests.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.floor(attempt));
  const raw = Math.min(options.maxMs, options.initialMs * options.factor ** exponent);
  const jitter = Math.min(1, Math.max(0, options.jitter));
  return Math.round(raw * (1 - jitter * random()));
}
