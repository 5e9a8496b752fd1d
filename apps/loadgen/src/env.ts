// The load generator's environment: the one variable it reads (the rest of its configuration is flags).
import { z } from "zod";

export const loadgenEnvSchema = z.object({
  LOADGEN_TOKEN: z.string().min(1).optional(),
});
export type LoadgenEnv = z.infer<typeof loadgenEnvSchema>;

export function loadLoadgenEnv(env: Record<string, string | undefined>): LoadgenEnv {
  return loadgenEnvSchema.parse({ LOADGEN_TOKEN: env.LOADGEN_TOKEN || undefined });
}
