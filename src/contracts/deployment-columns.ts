// The JSON columns of deployments, their generations and their metrics rollups.
import { z } from "zod";
import {
  deploymentReportSchema,
  estimatorDecisionSchema,
  estimatorTimelineSchema,
  reconfigurationReportSchema,
} from "./agent-protocol";
import { jsonColumn, storedDate } from "./json-column";
import { servingPlanSchema } from "./serving-plan";

/**
 * deployment.lastReport: the agent's newest heartbeat report of the deployment, with the arrival rate derived from
 * it and the estimator's timeline kept across heartbeats. Every part is optional: reports of older agents lack some.
 */
export const deploymentLastReportSchema = z
  .looseObject({
    at: storedDate,
    intervalMs: z.number().min(0),
    /** Requests per second over the report's interval. */
    arrivalRatePerS: z.number().min(0),
    requests: deploymentReportSchema.shape.requests,
    rows: deploymentReportSchema.shape.rows,
    queueDepthRows: z.number().int().min(0),
    instances: deploymentReportSchema.shape.instances,
    affinityOk: z.boolean(),
    estimator: deploymentReportSchema.shape.estimator,
    estimatorTimeline: estimatorTimelineSchema,
    lastReconfiguration: reconfigurationReportSchema,
    estimatorProposal: z.object({
      batchSize: z.number().int().positive(),
      decision: estimatorDecisionSchema,
      at: storedDate,
    }),
  })
  .partial();
export type DeploymentLastReport = z.infer<typeof deploymentLastReportSchema>;
export const deploymentLastReportColumn = jsonColumn("deployment.lastReport", deploymentLastReportSchema.nullable());

/** deployment_generation.plan: the serving plan of the generation, with its per-instance cpulists. */
export const generationPlanColumn = jsonColumn("deployment_generation.plan", servingPlanSchema);

/** deployment_generation.report: what the agent's reconfiguration to it did (null until it reports one). */
export const generationReportColumn = jsonColumn(
  "deployment_generation.report",
  reconfigurationReportSchema.nullable(),
);

/** One metrics interval's latency histograms per stage (deserialize, queue, …, total), each in its wire encoding. */
const stageHistogramsSchema = z.record(z.string(), z.string());
export type StageHistograms = z.infer<typeof stageHistogramsSchema>;

/**
 * metrics_rollup.histograms: the minute's latency histograms as the parts they came in, one per metrics message
 * (appended by the upsert, never decoded on the way in), merged by whoever reads them. A row written before parts
 * (one object, the minute already merged) reads as its one part.
 */
export const rollupHistogramsSchema = z
  .union([z.array(stageHistogramsSchema), stageHistogramsSchema])
  .transform((value): StageHistograms[] => (Array.isArray(value) ? value : [value]));
export const rollupHistogramsColumn = jsonColumn("metrics_rollup.histograms", rollupHistogramsSchema);

/**
 * metrics_rollup_part.histograms: one metrics message's histograms for a deployment and minute, inserted as they
 * came (never updated, never decoded on the way in). A minute's histograms are its parts, merged by whoever reads
 * them; metrics_rollup.histograms is no longer written (the migration moved its parts here).
 */
export const rollupPartHistogramsColumn = jsonColumn("metrics_rollup_part.histograms", stageHistogramsSchema);

/** A stage's encoded histograms in a rollup row's parts (none when no interval measured it). */
export function rollupStageParts(parts: readonly StageHistograms[], stage: string): string[] {
  const out: string[] = [];
  for (const part of parts) {
    const encoded = part[stage];
    if (encoded) out.push(encoded);
  }
  return out;
}
