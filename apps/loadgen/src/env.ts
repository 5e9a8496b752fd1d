// The load generator's environment: the one variable it reads (the rest of its configuration is flags).
import { z } from "zod";

export const loadgenEnvSchema = z.object({
  LOADGEN_TOKEN: z.string().min(1).optional(),
});
export type LoadgenEnv = z.infer<typeof loadgenEnvSchema>;

export function loadLoadgenEnv(env: Record<string, string | undefined>): LoadgenEnv {
  return loadgenEnvSchema.parse({ LOADGEN_TOKEN: env.LOADGEN_TOKEN || undefined });
}

/** A copy of this process's environment with `extra` laid over it: what a child process inherits, or the source
 *  handed to a parser that validates it. The one way to the raw environment outside this module. */
export function processEnvironment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}
