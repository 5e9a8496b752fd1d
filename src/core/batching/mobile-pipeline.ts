import { PlanningInputError } from "../planning/errors";
import { nonNegative, positive } from "./guards";

/**
 * A SingleStream device pipeline (F-40, Example 13.5): phases run one after another, so latency and energy add up.
 */

export interface PipelinePhase {
  name: string;
  durationMs: number;
  energyMj: number;
}

export interface PipelineSummary {
  latencyMs: number;
  energyMj: number;
  framesPerS: number;
  /** Inference-path power: energy / latency, in mW. */
  powerMw: number;
  /** Inferences one battery charge covers, when a battery is given. */
  inferencesPerBattery: number | null;
}

export function summarizePipeline(phases: readonly PipelinePhase[], batteryWh?: number): PipelineSummary {
  if (phases.length === 0)
    throw new PlanningInputError("out_of_range", "phases", "a pipeline needs at least one phase");
  let latencyMs = 0;
  let energyMj = 0;
  phases.forEach((p, i) => {
    latencyMs += nonNegative(`phases[${i}].durationMs`, p.durationMs);
    energyMj += nonNegative(`phases[${i}].energyMj`, p.energyMj);
  });
  positive("phases", latencyMs);
  const battery = batteryWh === undefined ? null : positive("batteryWh", batteryWh) * 3600; // joules
  return {
    latencyMs,
    energyMj,
    framesPerS: 1000 / latencyMs,
    powerMw: (energyMj / latencyMs) * 1000,
    inferencesPerBattery: battery === null || energyMj === 0 ? null : battery / (energyMj / 1000),
  };
}

/** Swaps one phase (e.g. the NPU inference for a CPU fallback) and keeps the rest. */
export function replacePhase(
  phases: readonly PipelinePhase[],
  name: string,
  replacement: PipelinePhase,
): PipelinePhase[] {
  const i = phases.findIndex((p) => p.name === name);
  if (i < 0) throw new PlanningInputError("out_of_range", "name", `no phase named "${name}"`);
  return phases.map((p, j) => (j === i ? replacement : p));
}
