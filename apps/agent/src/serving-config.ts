// What the supervisor hands the serving process: the models to serve and how.
import { z } from "zod";
import { servingPlanSchema } from "@packrat/contracts/serving-plan";

export const servingConfigSchema = z.object({
  /** Only increases; a restarted serving process comes back at the generation it last applied. */
  generation: z.number().int().min(1).default(1),
  models: z.array(
    z.object({
      name: z
        .string()
        .regex(
          /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/,
          "letters, digits, '.', '_' and '-', starting with a letter or digit",
        ),
      version: z.string().min(1).default("1"),
      modelPath: z.string().min(1),
      plan: servingPlanSchema,
      /** Attached mode: the control plane's deployment and its own generation (else the config's). */
      deploymentId: z.string().optional(),
      generation: z.number().int().min(1).optional(),
      sloDeadlineMs: z.number().positive().optional(),
    }),
  ),
});

export type ServingConfig = z.infer<typeof servingConfigSchema>;
