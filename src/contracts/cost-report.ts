// The cost report's input, shared by the page (its URL state) and the tRPC procedure: the periods, the defaults
// and the one schema that validates them.
import { z } from "zod";

export const COST_PERIODS = { "24h": 86_400, "7d": 7 * 86_400, "30d": 30 * 86_400 } as const;
export type CostPeriod = keyof typeof COST_PERIODS;
/** Default headroom on the replica count (TV-076 uses 1.3; the chapter illustrates 1.6–2.0 for a whole fleet). */
export const DEFAULT_HEADROOM_MULTIPLIER = 1.3;
/** N+k: spare replicas for failures on top of the headroom. */
export const DEFAULT_REDUNDANCY_K = 1;

const positive = z.number().positive().max(1e9);

export const costReportInputSchema = z.object({
  period: z.enum(Object.keys(COST_PERIODS) as [CostPeriod, ...CostPeriod[]]).default("7d"),
  modelId: z.string().min(1).max(200).optional(),
  hardwareClass: z.string().min(1).max(500).optional(),
  /** Entered peak rates (requests/s) by deployment id. */
  peakPerS: z.record(z.string().min(1).max(200), positive).default({}),
  headroomMultiplier: z
    .number()
    .min(1, "headroom must be at least 1× (no headroom)")
    .max(10)
    .default(DEFAULT_HEADROOM_MULTIPLIER),
  redundancyK: z.number().int().min(0).max(100).default(DEFAULT_REDUNDANCY_K),
  breakEven: z
    .object({
      modelId: z.string().min(1).max(200),
      classA: z.string().min(1).max(500),
      classB: z.string().min(1).max(500),
      capacityA: positive.optional(),
      capacityB: positive.optional(),
    })
    .optional(),
});
export type CostReportInput = z.output<typeof costReportInputSchema>;
