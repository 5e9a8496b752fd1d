import { PlanningInputError } from "../planning/errors";
import { finite } from "./guards";

/**
 * Classifies a model's traffic from arrival timestamps into the MLPerf scenarios of Table 12 and gives the batching
 * strategy the chapter recommends for each (§13.5.5, F-39). The signal is the inter-arrival coefficient of variation
 * (CV = std/mean of the gaps): ≈ 1 for Poisson (Server), near 0 for one sequential stream (SingleStream), and a
 * regular train of same-sized bursts for synchronized sensors (MultiStream). The thresholds are ours; the chapter
 * names the patterns, not numbers.
 */

export type TrafficScenario = "Server" | "MultiStream" | "SingleStream" | "Offline";

export interface ScenarioStrategy {
  context: string;
  strategy: string;
  focus: string;
}

/** Table 12, verbatim in substance. */
export const SCENARIO_STRATEGIES: Record<TrafficScenario, ScenarioStrategy> = {
  Server: {
    context: "cloud APIs, web services (Poisson arrivals)",
    strategy: "dynamic batching with timeout",
    focus: "window tuning, utilization-latency curve",
  },
  MultiStream: {
    context: "grouped sensor-like inputs (correlated arrivals)",
    strategy: "joint query processing: batch = sensors per frame, deadline = frame period",
    focus: "group latency; arrival jitter against the frame deadline",
  },
  SingleStream: {
    context: "mobile apps, embedded devices (one request at a time)",
    strategy: "no batching (B = 1)",
    focus: "preprocessing, power efficiency",
  },
  Offline: {
    context: "batch processing, data pipelines (all inputs staged)",
    strategy: "maximum batch size within memory",
    focus: "throughput, hardware utilization",
  },
};

/** Below this CV the gaps are regular enough to be one sequential (closed-loop) stream. */
export const SINGLE_STREAM_MAX_CV = 0.5;
/** Above this CV Server traffic is flagged bursty: size for the peaks, not the mean. */
export const BURSTY_MIN_CV = 1.5;
/** Group starts must be this regular (CV of the periods) to count as a synchronized frame train. */
export const MULTI_STREAM_MAX_PERIOD_CV = 0.25;
/** Share of groups that must have the modal size. */
export const MULTI_STREAM_MIN_MODAL_SHARE = 0.8;
/** Below this many gaps the classification is flagged as resting on a small sample. */
export const LOW_SAMPLE_GAPS = 30;

export interface TrafficClassification {
  scenario: TrafficScenario;
  arrivals: number;
  /** Fewer than LOW_SAMPLE_GAPS inter-arrival gaps: the CV is too noisy to lean on (a Poisson trace of 10 reads as
   * SingleStream about 3% of the time). */
  lowSample: boolean;
  meanInterArrivalMs: number;
  interArrivalCv: number;
  /** Server traffic with CV above BURSTY_MIN_CV. */
  bursty: boolean;
  /** MultiStream only: requests per synchronized group (the batch) and the frame period (the deadline). */
  groupSize: number | null;
  periodMs: number | null;
  recommendation: ScenarioStrategy;
}

function meanAndCv(xs: readonly number[]): { mean: number; cv: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
  return { mean, cv: mean > 0 ? Math.sqrt(variance) / mean : 0 };
}

/**
 * Bursts of near-simultaneous arrivals: split the gaps at the widest jump between sorted gap sizes, then require
 * ≥ 3 groups of one modal size ≥ 2 whose start times repeat with a regular period.
 */
function detectGroups(arrivals: readonly number[], gaps: readonly number[]): { size: number; periodMs: number } | null {
  const sorted = [...gaps].sort((a, b) => a - b);
  let jump = 0;
  let threshold = 0;
  for (let i = 1; i < sorted.length; i++) {
    const d = (sorted[i] as number) - (sorted[i - 1] as number);
    if (d > jump) {
      jump = d;
      threshold = ((sorted[i] as number) + (sorted[i - 1] as number)) / 2;
    }
  }
  if (jump === 0) return null;
  const starts: number[] = [arrivals[0] as number];
  const sizes: number[] = [1];
  gaps.forEach((g, i) => {
    if (g > threshold) {
      starts.push(arrivals[i + 1] as number);
      sizes.push(1);
    } else {
      sizes[sizes.length - 1] = (sizes[sizes.length - 1] as number) + 1;
    }
  });
  if (sizes.length < 3) return null;
  const counts = new Map<number, number>();
  for (const s of sizes) counts.set(s, (counts.get(s) ?? 0) + 1);
  let modal = 0;
  let modalCount = 0;
  for (const [size, count] of counts) {
    if (count > modalCount || (count === modalCount && size > modal)) {
      modal = size;
      modalCount = count;
    }
  }
  if (modal < 2 || modalCount / sizes.length < MULTI_STREAM_MIN_MODAL_SHARE) return null;
  const periods = starts.slice(1).map((s, i) => s - (starts[i] as number));
  const p = meanAndCv(periods);
  if (p.cv > MULTI_STREAM_MAX_PERIOD_CV) return null;
  // The bursts must be tight against the period, or this is just clumpy traffic.
  if (threshold > 0.5 * p.mean) return null;
  return { size: modal, periodMs: p.mean };
}

export function classifyTraffic(arrivalsMs: readonly number[]): TrafficClassification {
  if (arrivalsMs.length < 3) {
    throw new PlanningInputError(
      "out_of_range",
      "arrivalsMs",
      "need at least 3 arrivals to measure inter-arrival variation",
    );
  }
  arrivalsMs.forEach((t, i) => {
    finite(`arrivalsMs[${i}]`, t);
    if (i > 0 && t < (arrivalsMs[i - 1] as number)) {
      throw new PlanningInputError("inconsistent", `arrivalsMs[${i}]`, "arrival times must be nondecreasing");
    }
  });
  const gaps = arrivalsMs.slice(1).map((t, i) => t - (arrivalsMs[i] as number));
  const { mean, cv } = meanAndCv(gaps);
  const base = {
    arrivals: arrivalsMs.length,
    lowSample: gaps.length < LOW_SAMPLE_GAPS,
    meanInterArrivalMs: mean,
    interArrivalCv: cv,
  };
  const result = (scenario: TrafficScenario, extra: Partial<TrafficClassification> = {}): TrafficClassification => ({
    scenario,
    ...base,
    bursty: false,
    groupSize: null,
    periodMs: null,
    recommendation: SCENARIO_STRATEGIES[scenario],
    ...extra,
  });

  // Everything at once: the inputs were staged, not arriving.
  if (mean === 0) return result("Offline");
  const groups = detectGroups(arrivalsMs, gaps);
  if (groups !== null) return result("MultiStream", { groupSize: groups.size, periodMs: groups.periodMs });
  if (cv < SINGLE_STREAM_MAX_CV) return result("SingleStream");
  return result("Server", { bursty: cv > BURSTY_MIN_CV });
}
