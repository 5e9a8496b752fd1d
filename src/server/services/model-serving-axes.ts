// A stored version's batch axes and dimensions to fix, decided by the same function the agent uses (servingAxes)
// on the interface stored at registration, with the overrides the user gave. Every path that writes a plan for a
// version (deploy, profile, optimizer, proposal, approval) checks it here, so they all refuse the same way.
import { ModelAnalysisInputError } from "@/core/model-analysis/errors";
import { planProblem, servingAxes, type ServingAxes } from "@/core/model-analysis/serving-axes";
import type { ServingPlan } from "@/contracts/serving-plan";
import { invalidInput } from "@/server/errors/domain-errors";
import type { StoredJsonValue } from "@/contracts/json-column";
import { readStoredAnalysis } from "./models-analysis";

/** null for a version whose analysis this code cannot read (then the agent alone decides). */
export function versionServingAxes(
  analysisJson: StoredJsonValue | undefined,
): { axes: ServingAxes; batchAxes: Record<string, number | null> } | null {
  const stored = readStoredAnalysis(analysisJson);
  if (!stored) return null;
  const batchAxes = stored.batchAxes ?? {};
  try {
    return { axes: servingAxes(stored.summary.inputs, stored.summary.outputs, batchAxes), batchAxes };
  } catch (error) {
    if (error instanceof ModelAnalysisInputError)
      return { axes: servingAxes(stored.summary.inputs, stored.summary.outputs), batchAxes: {} };
    throw error;
  }
}

/** The plan with the version's batch-axis overrides, refused (400, naming the tensor) when the model cannot run it. */
export function planForVersion(
  analysisJson: StoredJsonValue | undefined,
  plan: ServingPlan,
  field = "plan",
): ServingPlan {
  const found = versionServingAxes(analysisJson);
  if (!found) return plan;
  const withAxes: ServingPlan = Object.keys(found.batchAxes).length ? { ...plan, batchAxes: found.batchAxes } : plan;
  const problem = planProblem(found.axes, withAxes);
  if (problem) throw invalidInput(problem, { field });
  return withAxes;
}

/** Whether the version can be batched; the reason names the tensor when not. */
export function versionBatching(analysisJson: StoredJsonValue | undefined): ServingAxes["batching"] {
  return versionServingAxes(analysisJson)?.axes.batching ?? { batchable: true };
}
