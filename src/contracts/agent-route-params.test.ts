import { describe, expect, it } from "vitest";
import { AGENT_JOB_KINDS, jobPathParamsSchema, nextJobQuerySchema } from "./agent-jobs";
import { artifactPathParamsSchema, desiredQuerySchema } from "./agent-protocol";

const firstIssue = (result: {
  success: boolean;
  error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
}) => {
  const issue = result.error!.issues[0]!;
  return `${issue.path.join(".")}: ${issue.message}`;
};

describe("agent route query and path schemas", () => {
  it("GET /jobs/next: kinds default to profiling, split on commas, an unknown one is refused with the known list", () => {
    expect(nextJobQuerySchema.parse({})).toEqual({ kinds: ["profile"] });
    expect(nextJobQuerySchema.parse({ kinds: "profile,load_test" })).toEqual({ kinds: ["profile", "load_test"] });
    const refused = nextJobQuerySchema.safeParse({ kinds: "profile,teleport" });
    expect(refused.success).toBe(false);
    // Older agents narrow their list from "; known: …" (the route's message before these schemas, kept as it was).
    expect(firstIssue(refused)).toBe(`kinds: unknown job kind teleport; known: ${AGENT_JOB_KINDS.join(", ")}`);
    expect(firstIssue(nextJobQuerySchema.safeParse({ kinds: "" }))).toMatch(/^kinds: unknown job kind \(none\)/);
  });

  it("GET /desired: after is a non-negative integer revision, 0 when absent", () => {
    expect(desiredQuerySchema.parse({})).toEqual({ after: 0 });
    expect(desiredQuerySchema.parse({ after: "17" })).toEqual({ after: 17 });
    for (const bad of ["-1", "1.5", "x"])
      expect(firstIssue(desiredQuerySchema.safeParse({ after: bad }))).toBe(
        `after: must be a non-negative integer, got "${bad}"`,
      );
  });

  it("path parameters: a job id, an artifact's sha256", () => {
    expect(jobPathParamsSchema.safeParse({ id: "j-1" }).success).toBe(true);
    expect(jobPathParamsSchema.safeParse({ id: "" }).success).toBe(false);
    expect(artifactPathParamsSchema.safeParse({ sha256: "a".repeat(64) }).success).toBe(true);
    expect(artifactPathParamsSchema.safeParse({ sha256: "A".repeat(64) }).success).toBe(false);
  });
});
