// What a plan trial says about the optimizer's choice. Plans ran interleaved in rounds, so each round saw the same
// moment of the host: the comparison is paired per round. The trial contradicts the prediction "beyond noise" when
// the measured best is another plan and the 95% interval of the per-round difference (choice − best) lies above 0;
// then the measured best is proposed, and the reason says by how much. Otherwise the optimizer's choice stands.
import { meanConfidenceInterval } from "../stats/confidence";

export interface MeasuredCandidate {
  key: string;
  rank: number | null;
  predictedMs: number | null;
  /** Mean batch latency of each round, in round order (same length for every measured plan). */
  roundMeansMs: readonly number[];
}

export interface TrialVerdict {
  /** The plan to propose. */
  proposedKey: string;
  /** The optimizer's choice (rank 1). */
  predictedKey: string;
  measuredBestKey: string;
  contradicted: boolean;
  /** (choice − best) per round: mean and 95% interval, ms; null when the best is the choice or fewer than 2 rounds. */
  differenceMs: { mean: number; lower: number; upper: number } | null;
  why: string;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

export function trialVerdict(candidates: readonly MeasuredCandidate[], confidence = 0.95): TrialVerdict {
  const measured = candidates.filter((c) => c.roundMeansMs.length > 0);
  if (measured.length === 0) throw new RangeError("candidates: no plan was measured");
  const choice = measured.find((c) => c.rank === 1);
  const best = [...measured].sort((a, b) => mean(a.roundMeansMs) - mean(b.roundMeansMs))[0]!;
  if (!choice) {
    return {
      proposedKey: best.key,
      predictedKey: best.key,
      measuredBestKey: best.key,
      contradicted: false,
      differenceMs: null,
      why: `the optimizer's choice could not be measured; ${best.key} was the fastest plan measured (${mean(best.roundMeansMs).toFixed(2)} ms)`,
    };
  }
  const base = { predictedKey: choice.key, measuredBestKey: best.key };
  const choiceMs = mean(choice.roundMeansMs);
  if (best.key === choice.key) {
    return {
      ...base,
      proposedKey: choice.key,
      contradicted: false,
      differenceMs: null,
      why: `the trial confirms the optimizer's choice: ${choice.key} measured ${choiceMs.toFixed(2)} ms, the fastest of ${measured.length} plans`,
    };
  }
  const rounds = Math.min(choice.roundMeansMs.length, best.roundMeansMs.length);
  const bestMs = mean(best.roundMeansMs);
  if (rounds < 2) {
    return {
      ...base,
      proposedKey: choice.key,
      contradicted: false,
      differenceMs: null,
      why: `one round only: ${best.key} measured ${bestMs.toFixed(2)} ms against ${choiceMs.toFixed(2)} ms, too few rounds to tell from noise; the optimizer's choice stands`,
    };
  }
  const diffs = Array.from({ length: rounds }, (_, r) => choice.roundMeansMs[r]! - best.roundMeansMs[r]!);
  const ci = meanConfidenceInterval(diffs, confidence);
  const differenceMs = { mean: ci.mean, lower: ci.lower, upper: ci.upper };
  const pct = (100 * (choiceMs - bestMs)) / bestMs;
  if (ci.lower > 0) {
    return {
      ...base,
      proposedKey: best.key,
      contradicted: true,
      differenceMs,
      why:
        `the trial contradicts the prediction: ${best.key} measured ${bestMs.toFixed(2)} ms, the optimizer's choice ${choice.key} ${choiceMs.toFixed(2)} ms ` +
        `(${pct.toFixed(1)}% slower; per-round difference ${ci.lower.toFixed(2)}–${ci.upper.toFixed(2)} ms, ${Math.round(confidence * 100)}% interval, ${rounds} rounds), ` +
        `although the profile predicted ${fmt(choice.predictedMs)} vs ${fmt(best.predictedMs)} ms: ${best.key} is proposed instead`,
    };
  }
  return {
    ...base,
    proposedKey: choice.key,
    contradicted: false,
    differenceMs,
    why:
      `within noise: ${best.key} measured ${bestMs.toFixed(2)} ms and the optimizer's choice ${choice.key} ${choiceMs.toFixed(2)} ms; ` +
      `the per-round difference ${ci.lower.toFixed(2)}–${ci.upper.toFixed(2)} ms (${Math.round(confidence * 100)}% interval, ${rounds} rounds) includes 0, so the choice stands`,
  };
}

const fmt = (x: number | null) => (x === null ? "—" : x.toFixed(2));
