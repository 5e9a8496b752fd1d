import { nonNegative, positive, positiveInteger, unitInterval } from "./guards";
import { latencyBoundedBatch, planningMeanLatencyMs, tailEnvelope } from "./latency-screens";
import { serviceTimeMs, type ServiceTimeModel } from "./service-time";
import { stabilityScreen } from "./stability";
import { maxWindowMs } from "./window-rule";
import { zeroWindowAdvice } from "./zero-window";

/**
 * Runs every screen the chapter names on one (window, max batch) candidate before anyone approves it (digest §6.3
 * item 24): stability, the Eq. 11 mean screen, the Eq. 12 tail envelope, the window share of the SLO, the memory cap,
 * and the zero-window conditions. Passing clears these screens only; worker backlog and the other request stages
 * still need a load test.
 */

export type CheckId = "stability" | "mean-screen" | "tail-envelope" | "window-fraction" | "memory-cap" | "zero-window";

export interface BatchingCheck {
  id: CheckId;
  status: "pass" | "fail" | "skipped";
  /** The numbers behind the verdict; null where a quantity has no finite value (e.g. an unbounded batch). */
  numbers: Record<string, number | null>;
  message: string;
}

export interface BatchingCandidateInput {
  model: ServiceTimeModel;
  /** Offered load; use the peak, not the mean. */
  arrivalRatePerS: number;
  windowMs: number;
  maxBatch: number;
  sloMs: number;
  /** Mean budget for batching + service (Eq. 11); default the SLO. */
  meanBudgetMs?: number;
  /** Budget the Eq. 12 envelope must fit; default the SLO. */
  tailBudgetMs?: number;
  /** Share of the SLO the window may take; default 0.3. */
  windowFraction?: number;
  /** Request-seen batch quantile; default 0.99. */
  quantile?: number;
  /** Largest batch memory allows; the memory check is skipped without it. */
  memoryCapBatch?: number;
  /** Scheduling efficiency applied to capacity in the stability check; default 1 (ideal). */
  efficiency?: number;
  variableLengthInputs?: boolean;
  raggedTensorSupport?: boolean;
}

export interface BatchingValidation {
  pass: boolean;
  checks: BatchingCheck[];
}

const ms = (x: number) => `${x.toFixed(3)} ms`;

export function validateBatchingCandidate(input: BatchingCandidateInput): BatchingValidation {
  const { model } = input;
  const lambda = nonNegative("arrivalRatePerS", input.arrivalRatePerS);
  const windowMs = nonNegative("windowMs", input.windowMs);
  const maxBatch = positiveInteger("maxBatch", input.maxBatch);
  const sloMs = positive("sloMs", input.sloMs);
  const meanBudgetMs = positive("meanBudgetMs", input.meanBudgetMs ?? sloMs);
  const tailBudgetMs = positive("tailBudgetMs", input.tailBudgetMs ?? sloMs);
  const fraction = input.windowFraction ?? 0.3;
  const efficiency = unitInterval("efficiency", input.efficiency ?? 1);
  serviceTimeMs(model, maxBatch); // the model must give a positive time over the candidate's range

  const checks: BatchingCheck[] = [];

  const stab = stabilityScreen(model, lambda, maxBatch, efficiency);
  checks.push({
    id: "stability",
    status: stab.stable ? "pass" : "fail",
    numbers: { arrivalRatePerS: lambda, capacityPerS: stab.capacityPerS, utilization: stab.utilization },
    message: stab.stable
      ? `λ = ${lambda}/s < μ_eff(${maxBatch}) = ${stab.capacityPerS.toFixed(1)}/s (ρ = ${stab.utilization.toFixed(3)})`
      : `λ = ${lambda}/s ≥ μ_eff(${maxBatch}) = ${stab.capacityPerS.toFixed(1)}/s: the backlog diverges`,
  });

  const bound = latencyBoundedBatch(model, windowMs, meanBudgetMs);
  const meanMs = planningMeanLatencyMs(model, lambda, windowMs, maxBatch);
  const meanAtMaxMs = windowMs / 2 + serviceTimeMs(model, maxBatch);
  const meanPass = bound === null || maxBatch <= bound;
  checks.push({
    id: "mean-screen",
    status: meanPass ? "pass" : "fail",
    numbers: {
      latencyBoundedBatch: bound,
      maxBatch,
      meanLatencyMs: meanMs,
      meanAtMaxBatchMs: meanAtMaxMs,
      meanBudgetMs,
    },
    message: meanPass
      ? `T_w/2 + T(${maxBatch}) = ${ms(meanAtMaxMs)} ≤ ${ms(meanBudgetMs)} (B_L = ${bound ?? "unbounded"}); mean at λ ${ms(meanMs)}`
      : `B_max = ${maxBatch} > B_L = ${bound}: T_w/2 + T(${maxBatch}) = ${ms(meanAtMaxMs)} exceeds ${ms(meanBudgetMs)}`,
  });

  const env = tailEnvelope(model, lambda, windowMs, { level: input.quantile ?? 0.99, maxBatch });
  const envPass = env.envelopeMs <= tailBudgetMs;
  checks.push({
    id: "tail-envelope",
    status: envPass ? "pass" : "fail",
    numbers: { requestSeenBatch: env.requestSeenBatch, batch: env.batch, envelopeMs: env.envelopeMs, tailBudgetMs },
    message: `T_w + T(${env.batch}) = ${ms(env.envelopeMs)} ${envPass ? "≤" : ">"} ${ms(tailBudgetMs)}`,
  });

  const windowLimit = maxWindowMs(sloMs, fraction);
  const windowPass = windowMs <= windowLimit;
  checks.push({
    id: "window-fraction",
    status: windowPass ? "pass" : "fail",
    numbers: { windowMs, fraction, sloMs, maxWindowMs: windowLimit },
    message: `T_w = ${ms(windowMs)} ${windowPass ? "≤" : ">"} ${fraction} × ${sloMs} ms = ${ms(windowLimit)}`,
  });

  if (input.memoryCapBatch === undefined) {
    checks.push({
      id: "memory-cap",
      status: "skipped",
      numbers: { maxBatch, memoryCapBatch: null },
      message: "no memory cap given",
    });
  } else {
    const cap = input.memoryCapBatch;
    const memPass = maxBatch <= cap;
    checks.push({
      id: "memory-cap",
      status: memPass ? "pass" : "fail",
      numbers: { maxBatch, memoryCapBatch: cap },
      message: `B_max = ${maxBatch} ${memPass ? "≤" : ">"} memory cap ${cap}`,
    });
  }

  const zero = zeroWindowAdvice({
    model,
    sloMs,
    windowFraction: fraction,
    variableLengthInputs: input.variableLengthInputs,
    raggedTensorSupport: input.raggedTensorSupport,
    memoryCapBatch: input.memoryCapBatch,
  });
  const zeroPass = !zero.zeroWindow || windowMs === 0;
  checks.push({
    id: "zero-window",
    status: zeroPass ? "pass" : "fail",
    numbers: { windowMs, conditionsMet: zero.reasons.length },
    message: zero.zeroWindow
      ? `${zeroPass ? "window is zero as advised" : "use a zero window"}: ${zero.reasons.map((r) => r.detail).join("; ")}`
      : "no zero-window condition holds",
  });

  return { pass: checks.every((c) => c.status !== "fail"), checks };
}
