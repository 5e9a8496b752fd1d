// How long a plan trial will take, before it starts (shown beside the Propose button, and the job's time limit is a
// multiple of it). Per plan and round: the settle pause, one warm-up batch, then batches until the round's time is
// up (at least the minimum count): settle + p + max(roundMs, m·p) for a plan predicted at p ms per batch. Start-up:
// the process (a fixed allowance) and each instance's session (an allowance) plus its warm-up runs at p.

export interface TrialEstimateInput {
  /** Per plan: its predicted batch latency (ms; null when the profile lacks a cell: the slowest known is used) and instance count. */
  plans: ReadonlyArray<{ predictedMs: number | null; instances: number }>;
  rounds: number;
  roundMs: number;
  settleMs: number;
  minBatchesPerTurn: number;
  warmupIterations: number;
  /** Allowances measured roughly on a loaded 2-core host (tsx start-up, session creation). */
  processStartMs?: number;
  sessionStartMs?: number;
}

export function estimateTrialMs(input: TrialEstimateInput): number {
  if (input.plans.length === 0) throw new RangeError("plans: a trial needs at least one plan");
  const known = input.plans.map((p) => p.predictedMs).filter((x): x is number => x !== null && x > 0);
  const fallback = known.length ? Math.max(...known) : 100;
  let total = input.processStartMs ?? 3000;
  for (const plan of input.plans) {
    const p = plan.predictedMs !== null && plan.predictedMs > 0 ? plan.predictedMs : fallback;
    total += plan.instances * ((input.sessionStartMs ?? 500) + input.warmupIterations * p);
    total += input.rounds * (input.settleMs + p + Math.max(input.roundMs, input.minBatchesPerTurn * p));
  }
  return total;
}
