// What a plan export is asked for: which plan (a proposal's, a deployment's running generation, or the optimizer's
// answer as the Optimizer page shows it), which formats, and whether a plan the format cannot express is refused.
import { z } from "zod";

const id = z.string().min(1).max(200);
export const exportFormatSchema = z.enum(["triton", "ovms", "kserve"]);
export const differenceKindSchema = z.enum(["shape", "batch-shares", "dispatch-batch", "pinning", "batching-delay"]);

export const planExportSourceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("proposal"), proposalId: id }),
  z.object({ kind: z.literal("deployment"), deploymentId: id }),
  z.object({
    kind: z.literal("optimizer"),
    deploymentId: id,
    profileId: id,
    batchSize: z.number().int().min(1).max(65536),
    batchTimeoutMs: z.number().min(0).max(60_000).optional(),
  }),
]);

export const planExportInputSchema = z.object({
  source: planExportSourceSchema,
  /** One format, or all three when left out. */
  format: exportFormatSchema.optional(),
  /** Refuse a plan the format cannot express exactly, except the kinds of difference in `allow`. */
  strict: z.boolean().optional(),
  allow: z.array(differenceKindSchema).max(5).optional(),
  /** Where the target reads the model repository (KServe storageUri, OVMS base_path). */
  storageUri: z.string().trim().min(1).max(1000).optional(),
});

export type PlanExportSource = z.infer<typeof planExportSourceSchema>;
export type PlanExportInput = z.infer<typeof planExportInputSchema>;
