// How long an attached agent waits before it calls the control plane again after a failure.

/** Exponential from minMs to maxMs, with jitter so many agents do not reconnect in step. */
export function reconnectBackoffMs(attempt: number, minMs: number, maxMs: number): number {
  const base = Math.min(maxMs, minMs * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
