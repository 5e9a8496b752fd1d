// The serving configuration of one model on one agent: the shape the control plane writes into desired state and
// the standalone agent reads from --plan. Per-instance CPU lists are optional: without them the agent allocates.
import { z } from "zod";

const cpuList = z.string().regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, 'a cpulist such as "0-3,8"');

export const planItemSchema = z
  .object({
    count: z.number().int().min(1).max(1024),
    threads: z.number().int().min(1).max(1024),
    batch: z.number().int().min(1).max(65536),
    /** One cpulist per instance of this item (count entries), each with at least `threads` CPUs. */
    cpus: z.array(cpuList).optional(),
  })
  .refine((item) => !item.cpus || item.cpus.length === item.count, {
    message: "cpus must list one cpulist per instance (count entries)",
    path: ["cpus"],
  });

export const servingPlanSchema = z.object({
  instances: z.array(planItemSchema).min(1),
  /** Dispatcher batch B; defaults to Σ count·batch. */
  batchSize: z.number().int().min(1).max(65536).optional(),
  /** How long the oldest request may wait for a batch to fill; 0 dispatches whatever is queued at once. */
  batchTimeoutMs: z.number().min(0).max(60_000).default(0),
  /** Concrete sizes for the model's dynamic non-batch dimensions, used for warm-up (e.g. {"sequence": 128}). */
  dimensions: z.record(z.string(), z.number().int().min(1)).optional(),
  /**
   * Batch-axis overrides by tensor name: the axis, or null for a tensor that has none (shared state). Tensors not
   * listed get the axis servingAxes infers from the model (src/core/model-analysis/serving-axes.ts).
   */
  batchAxes: z.record(z.string().min(1).max(256), z.number().int().min(0).max(64).nullable()).optional(),
  warmupIterations: z.number().int().min(0).max(1000).default(3),
});

export type PlanItem = z.infer<typeof planItemSchema>;
export type ServingPlan = z.infer<typeof servingPlanSchema>;

export function planBatchSize(plan: ServingPlan): number {
  return plan.batchSize ?? plan.instances.reduce((sum, item) => sum + item.count * item.batch, 0);
}
