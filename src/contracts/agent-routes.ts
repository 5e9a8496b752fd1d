// The agent API's path and query parameters, validated by the route builder as bodies are
// (src/server/agent-auth/agent-route.ts): a route declares them and gets typed values.
import { z } from "zod";
import { AGENT_JOB_KINDS, type AgentJobKind } from "./agent-jobs";
import { AGENT_ERROR_CODES } from "./agent-protocol";

/** /jobs/{id}/…: a job's id (its row is looked up by the service, which answers 404 for another agent's). */
export const jobIdParamsSchema = z.object({ id: z.string().min(1).max(128) });

/** /artifacts/{sha256}: content-addressed, lowercase hex. */
export const artifactParamsSchema = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits") });

/** GET /desired?after=<revision>: the revision the agent holds (0, or absent: none yet). */
export const desiredQuerySchema = z.object({
  after: z.string().optional().transform((raw, ctx) => {
    const after = Number(raw ?? "0");
    if (!Number.isInteger(after) || after < 0) {
      ctx.addIssue({ code: "custom", message: `must be a non-negative integer, got "${raw}"` });
      return z.NEVER;
    }
    return after;
  }),
});

/**
 * GET /jobs/next?kinds=profile,load_test: the job kinds the agent runs (absent: profiling only, as older agents ask).
 * An unknown kind is refused with code unknown_job_kind and the kinds this control plane runs in `allowed`; the
 * message keeps the words older agents read ("unknown job kind …; known: …").
 */
export const nextJobQuerySchema = z.object({
  kinds: z.string().optional().transform((raw, ctx): AgentJobKind[] => {
    const asked = raw === undefined ? ["profile"] : raw.split(",");
    const unknown = asked.filter((kind) => !(AGENT_JOB_KINDS as readonly string[]).includes(kind));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: "custom", message: `unknown job kind ${unknown.join(", ") || "(none)"}; known: ${AGENT_JOB_KINDS.join(", ")}`,
        params: { code: AGENT_ERROR_CODES.unknownJobKind, allowed: [...AGENT_JOB_KINDS] },
      });
      return z.NEVER;
    }
    return asked as AgentJobKind[];
  }),
});
