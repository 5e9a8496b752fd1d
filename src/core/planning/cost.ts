/**
 * Serving economics (§1I: F-66…F-71; Table 18, Example 13.1, Napkin Math 13.5, §13.10.3). Money in US dollars
 * (…Usd), energy in joules (…J), power in watts (…W).
 */
import {
  PlanningInputError,
  requireNonNegative,
  requireNonNegativeInteger,
  requirePositive,
  requirePositiveInteger,
} from "./errors";
import { capacityPlan, type CapacityPlan, type CapacityPlanInput } from "./capacity";
import { ceilTolerant } from "./queueing";

const S_PER_HOUR = 3600;
/** The month the cost views bill: 730 h = 8,760 h / 12. */
export const HOURS_PER_MONTH = 730;

/** Cost per inference at a sustained rate: hourly cost / (3600 × rate). Use the SLO-meeting rate (goodput). */
export function costPerInferenceAtRateUsd(input: { hourlyCostUsd: number; throughputPerS: number }): number {
  const hourly = requireNonNegative("hourlyCostUsd", input.hourlyCostUsd);
  const rate = requirePositive("throughputPerS", input.throughputPerS);
  return hourly / (S_PER_HOUR * rate);
}

/** F-67 per million: hourly / (3600 × rate) × 10⁶. */
export function costPerMillionAtRateUsd(input: { hourlyCostUsd: number; throughputPerS: number }): number {
  return costPerInferenceAtRateUsd(input) * 1e6;
}

/** Outcome counts of the offered requests over a window. */
export interface ServedCounts {
  /** Completed within the SLO (goodput), including those a fallback model served. */
  withinSlo: number;
  /** Completed, but after the deadline: paid for, worth nothing against the SLO. */
  late: number;
  /** Shed by admission control (503). */
  rejected: number;
  /** The part of withinSlo that a fallback model served (reported for its quality, Appendix D.12). */
  fallback: number;
}

export interface CostReport {
  windowCostUsd: number;
  offered: number;
  completed: number;
  goodput: number;
  goodputPerS: number;
  /** Window cost / SLO-meeting completions; null when nothing met the SLO (the cost per useful answer is unbounded). */
  costPerInferenceUsd: number | null;
  costPerMillionUsd: number | null;
  rejected: number;
  fallback: number;
  late: number;
  /** Fractions of offered traffic; null when nothing was offered. Shedding must not hide behind a good cost. */
  rejectionRate: number | null;
  fallbackRate: number | null;
  lateRate: number | null;
}

/**
 * Cost per inference with the denominator the chapter insists on (Table 19, Appendix D.12): completed inferences
 * that met the SLO, not offered and not all completed, with rejections and fallbacks returned beside it.
 */
export function costReport(input: { hourlyCostUsd: number; windowS: number; counts: ServedCounts }): CostReport {
  const hourly = requireNonNegative("hourlyCostUsd", input.hourlyCostUsd);
  const windowS = requirePositive("windowS", input.windowS);
  const withinSlo = requireNonNegativeInteger("counts.withinSlo", input.counts.withinSlo);
  const late = requireNonNegativeInteger("counts.late", input.counts.late);
  const rejected = requireNonNegativeInteger("counts.rejected", input.counts.rejected);
  const fallback = requireNonNegativeInteger("counts.fallback", input.counts.fallback);
  if (fallback > withinSlo) {
    throw new PlanningInputError(
      "inconsistent",
      "counts.fallback",
      `fallback-served ${fallback} exceeds the ${withinSlo} completed within the SLO`,
    );
  }
  const windowCostUsd = (hourly * windowS) / S_PER_HOUR;
  const offered = withinSlo + late + rejected;
  const costPerInferenceUsd = withinSlo > 0 ? windowCostUsd / withinSlo : null;
  const rate = (n: number) => (offered > 0 ? n / offered : null);
  return {
    windowCostUsd,
    offered,
    completed: withinSlo + late,
    goodput: withinSlo,
    goodputPerS: withinSlo / windowS,
    costPerInferenceUsd,
    costPerMillionUsd: costPerInferenceUsd === null ? null : costPerInferenceUsd * 1e6,
    rejected,
    fallback,
    late,
    rejectionRate: rate(rejected),
    fallbackRate: rate(fallback),
    lateRate: rate(late),
  };
}

export interface HardwareOption {
  name: string;
  hourlyCostUsd: number;
  /** Sustained SLO-meeting throughput of one instance. */
  capacityPerS: number;
}

function requireOption(parameter: string, option: HardwareOption): HardwareOption {
  requirePositive(`${parameter}.hourlyCostUsd`, option.hourlyCostUsd);
  requirePositive(`${parameter}.capacityPerS`, option.capacityPerS);
  return option;
}

/** Whole instances of one option for a load, and what they cost per hour. */
export function rightSizedHourlyCost(input: { loadPerS: number; option: HardwareOption }): {
  instances: number;
  hourlyCostUsd: number;
} {
  const load = requireNonNegative("loadPerS", input.loadPerS);
  const option = requireOption("option", input.option);
  const instances = ceilTolerant(load / option.capacityPerS);
  return { instances, hourlyCostUsd: instances * option.hourlyCostUsd };
}

export interface BreakEven {
  /** large.hourly / small.hourly (Table 18's "7.5×"). */
  hourlyRatio: number;
  /** Load above which one large instance costs less than small capacity sized exactly to the load (F-68). */
  continuousPerS: number;
  /** The same with whole small instances: the most load ⌊large/small⌋ small instances carry for less. */
  wholeSmallInstancesPerS: number;
  /** Whether one large instance can even carry the break-even load; if not, it never wins on a single instance. */
  largeCarriesBreakEven: boolean;
}

/**
 * F-68: one large instance at C_L per hour beats small capacity at c_s per inference when the sustained load
 * X > C_L / (3600 · c_s) = C_L · capacity_s / C_s.
 */
export function breakEvenLoad(input: { large: HardwareOption; small: HardwareOption }): BreakEven {
  const large = requireOption("large", input.large);
  const small = requireOption("small", input.small);
  const hourlyRatio = large.hourlyCostUsd / small.hourlyCostUsd;
  const continuousPerS = hourlyRatio * small.capacityPerS;
  // floor with the same forgiveness as ceilTolerant: 8 × 0.5 / 0.5 must count 8 whole instances.
  const wholeInstances = Math.floor(hourlyRatio + 1e-9 * Math.max(1, hourlyRatio));
  return {
    hourlyRatio,
    continuousPerS,
    wholeSmallInstancesPerS: wholeInstances * small.capacityPerS,
    largeCarriesBreakEven: continuousPerS <= large.capacityPerS,
  };
}

export function monthlyCostUsd(input: { replicas: number; hourlyCostUsd: number; hoursPerMonth?: number }): number {
  const replicas = requireNonNegativeInteger("replicas", input.replicas);
  const hourly = requireNonNegative("hourlyCostUsd", input.hourlyCostUsd);
  const hours = requirePositive("hoursPerMonth", input.hoursPerMonth ?? HOURS_PER_MONTH);
  return replicas * hourly * hours;
}

export type PlanCost =
  | {
      feasible: true;
      plan: Extract<CapacityPlan, { feasible: true }>;
      replicas: number;
      hourlyCostUsd: number;
      monthlyCostUsd: number;
      baseMonthlyCostUsd: number;
    }
  | { feasible: false; plan: Extract<CapacityPlan, { feasible: false }> };

/** Replicas (with headroom) and their monthly bill for a peak rate under a p99 SLO. */
export function planMonthlyCost(
  input: CapacityPlanInput & { hourlyCostUsdPerReplica: number; hoursPerMonth?: number },
): PlanCost {
  const hourly = requireNonNegative("hourlyCostUsdPerReplica", input.hourlyCostUsdPerReplica);
  const plan = capacityPlan(input);
  if (!plan.feasible) return { feasible: false, plan };
  const hours = input.hoursPerMonth ?? HOURS_PER_MONTH;
  const replicas = plan.replicas.finalReplicas;
  return {
    feasible: true,
    plan,
    replicas,
    hourlyCostUsd: replicas * hourly,
    monthlyCostUsd: monthlyCostUsd({ replicas, hourlyCostUsd: hourly, hoursPerMonth: hours }),
    baseMonthlyCostUsd: monthlyCostUsd({
      replicas: plan.replicas.baseReplicas,
      hourlyCostUsd: hourly,
      hoursPerMonth: hours,
    }),
  };
}

/** Energy per inference (or per token): node power / throughput (F-66). Idle power still counts at low load. */
export function energyPerInferenceJ(input: { powerW: number; throughputPerS: number }): number {
  const power = requireNonNegative("powerW", input.powerW);
  const rate = requirePositive("throughputPerS", input.throughputPerS);
  return power / rate;
}

/** J per response = J/token × tokens per response (Napkin Math 13.5). */
export function energyPerResponseJ(input: { powerW: number; tokensPerS: number; tokensPerResponse: number }): number {
  const tokens = requirePositive("tokensPerResponse", input.tokensPerResponse);
  return energyPerInferenceJ({ powerW: input.powerW, throughputPerS: input.tokensPerS }) * tokens;
}

export interface LlmCostInput {
  hourlyCostUsd: number;
  promptTokens: number;
  outputTokens: number;
  /** Isolated prefill throughput, prompt tokens per second. */
  prefillTokensPerS: number;
  /** Optional optimistic KV-residency bound: resident requests / (TTFT + output × TPOT). */
  kvResidency?: { residentRequests: number; ttftMs: number; tpotMs: number };
}

export interface LlmCost {
  prefillLimitedRequestsPerS: number;
  kvResidencyRequestsPerS: number | null;
  limitingRequestsPerS: number;
  limitedBy: "prefill" | "kv-residency";
  /** Prompt + generated tokens per completed request (the chapter's count convention). */
  tokensPerRequest: number;
  tokensPerHour: number;
  costPerMillionTokensUsd: number;
}

/** F-71: the smaller of the prefill-limited and KV-residency rates sets tokens/hour and thus $ per million tokens. */
export function llmCostPerMillionTokens(input: LlmCostInput): LlmCost {
  const hourly = requireNonNegative("hourlyCostUsd", input.hourlyCostUsd);
  const prompt = requirePositiveInteger("promptTokens", input.promptTokens);
  const output = requireNonNegativeInteger("outputTokens", input.outputTokens);
  const prefillRate = requirePositive("prefillTokensPerS", input.prefillTokensPerS);
  const prefillLimitedRequestsPerS = prefillRate / prompt;
  let kvResidencyRequestsPerS: number | null = null;
  if (input.kvResidency) {
    const resident = requirePositiveInteger("kvResidency.residentRequests", input.kvResidency.residentRequests);
    const ttft = requirePositive("kvResidency.ttftMs", input.kvResidency.ttftMs);
    const tpot = requireNonNegative("kvResidency.tpotMs", input.kvResidency.tpotMs);
    kvResidencyRequestsPerS = (resident * 1000) / (ttft + output * tpot);
  }
  const kvBinds = kvResidencyRequestsPerS !== null && kvResidencyRequestsPerS < prefillLimitedRequestsPerS;
  const limitedBy = kvBinds ? "kv-residency" : "prefill";
  const limitingRequestsPerS =
    kvBinds && kvResidencyRequestsPerS !== null ? kvResidencyRequestsPerS : prefillLimitedRequestsPerS;
  const tokensPerRequest = prompt + output;
  const tokensPerHour = limitingRequestsPerS * tokensPerRequest * S_PER_HOUR;
  return {
    prefillLimitedRequestsPerS,
    kvResidencyRequestsPerS,
    limitingRequestsPerS,
    limitedBy,
    tokensPerRequest,
    tokensPerHour,
    costPerMillionTokensUsd: hourly / (tokensPerHour / 1e6),
  };
}
