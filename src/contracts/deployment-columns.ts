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

/** metrics_rollup.histograms: per stage (deserialize, queue, …, total), the minute's merged latency histogram. */
export const rollupHistogramsSchema = z.record(z.string(), z.string());
export const rollupHistogramsColumn = jsonColumn("metrics_rollup.histograms", rollupHistogramsSchema);
