// The agent route builder against the real database: each part of a request is validated by its contract (a query
// or body that fails is 400 naming the field, a path that fails 404), every answer is no-store with the request id,
// a token that has not registered gets 409 on the routes that need an agent, and errors reach the agent in one body
// (agentErrorSchema) carrying the domain code: a service's, src/core's own refusal, or unknown_job_kind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { POST as heartbeat } from "@/app/api/agent/v1/heartbeat/route";
import { GET as desired } from "@/app/api/agent/v1/desired/route";
import { POST as finish } from "@/app/api/agent/v1/jobs/[id]/finish/route";
import { GET as nextJob } from "@/app/api/agent/v1/jobs/next/route";
import { GET as whoami } from "@/app/api/agent/v1/whoami/route";
import { AGENT_JOB_KINDS } from "@/contracts/agent-jobs";
import { agentErrorSchema } from "@/contracts/agent-protocol";
import { OptimizerInputError } from "@/core/optimizer/errors";
import { createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { invalidInput } from "@/server/errors/domain-errors";
import { registerWithAgentToken } from "@/server/services/agent-registration-service";
import { registration } from "../../../test/access-probes";
import { agentRoute } from "./agent-route";
import { testEnv } from "../../../test/test-env";

const ORIGIN = "http://localhost:3999";
let token = "";
let unregistered = "";

const request = (path: string, bearer: string, init: { method?: string; body?: string } = {}) =>
  new Request(`${ORIGIN}/api/agent/v1${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${bearer}`,
      "x-request-id": "agent-route-test",
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });

/** The status, the error body as the agent parses it, and the headers every answer must have. */
async function refusal(response: Response) {
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(response.headers.get("x-request-id")).toBe("agent-route-test");
  return { status: response.status, error: agentErrorSchema.parse(await response.json()).error };
}

beforeAll(async () => {
  Object.assign(testEnv, { LONG_POLL_HOLD_MS: "200", LOG_LEVEL: "error" });
  resetEnvForTests();
  const admin = await insertTestUser(db(), "admin");
  const caller = { user: admin, requestId: "agent-route" };
  const created = await createTestAgentToken(caller, { name: `agent-route-${crypto.randomUUID().slice(0, 8)}` });
  token = created.token;
  await registerWithAgentToken(
    { tokenId: created.id, name: created.name, createdAt: created.createdAt, agentId: null },
    registration(`agent-route-${created.id.slice(0, 8)}`),
    "agent-route",
  );
  unregistered = (
    await createTestAgentToken(caller, { name: `agent-route-unregistered-${crypto.randomUUID().slice(0, 8)}` })
  ).token;
});
afterAll(() => {
  delete testEnv.LONG_POLL_HOLD_MS;
  resetEnvForTests();
});

describe("agent routes: contracts of the query, body and path", () => {
  it("refuses an unknown job kind with code unknown_job_kind, the parameter and the kinds allowed (and the words older agents read)", async () => {
    const { status, error } = await refusal(await nextJob(request("/jobs/next?kinds=profile,benchmark", token)));
    expect(status).toBe(400);
    expect(error).toEqual({
      code: "unknown_job_kind",
      parameter: "kinds",
      allowed: [...AGENT_JOB_KINDS],
      message: `kinds: unknown job kind benchmark; known: ${AGENT_JOB_KINDS.join(", ")}`,
    });
  });

  it("serves known kinds after the hold, typed and no-store", async () => {
    const response = await nextJob(request(`/jobs/next?kinds=${AGENT_JOB_KINDS.join(",")}`, token));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ job: null });
  });

  it("refuses a query parameter that is not what its contract says, naming it", async () => {
    const { status, error } = await refusal(await desired(request("/desired?after=-3", token)));
    expect(status).toBe(400);
    expect(error).toMatchObject({
      code: "BAD_REQUEST",
      parameter: "after",
      message: 'after: must be a non-negative integer, got "-3"',
    });
  });

  it("refuses a body field that breaks the contract, naming the field; and a body that is not JSON", async () => {
    const bad = await refusal(
      await heartbeat(request("/heartbeat", token, { method: "POST", body: JSON.stringify({ bootId: "not-a-uuid" }) })),
    );
    expect(bad.status).toBe(400);
    expect(bad.error.code).toBe("BAD_REQUEST");
    expect(bad.error.parameter).toBeTruthy();
    expect(bad.error.message.startsWith(`${bad.error.parameter}: `)).toBe(true);
    const junk = await refusal(await heartbeat(request("/heartbeat", token, { method: "POST", body: "{not json" })));
    expect(junk).toMatchObject({
      status: 400,
      error: { code: "BAD_REQUEST", parameter: "body", message: "the body is not valid JSON" },
    });
  });

  it("a path parameter outside its contract names nothing: 404", async () => {
    const response = await finish(
      request(`/jobs/${"x".repeat(200)}/finish`, token, { method: "POST", body: JSON.stringify({ outcome: "done" }) }),
      { params: Promise.resolve({ id: "x".repeat(200) }) },
    );
    const { status, error } = await refusal(response);
    expect(status).toBe(404);
    expect(error).toMatchObject({ code: "NOT_FOUND", parameter: "id" });
  });

  it("a service's refusal keeps its code: another agent's (or no) job is NOT_FOUND", async () => {
    const response = await finish(
      request("/jobs/no-such-job/finish", token, { method: "POST", body: JSON.stringify({ outcome: "done" }) }),
      { params: Promise.resolve({ id: "no-such-job" }) },
    );
    expect(await refusal(response)).toMatchObject({ status: 404, error: { code: "NOT_FOUND" } });
  });

  it("409 CONFLICT for a token that has not registered, on a route that needs an agent; any token on one that does not", async () => {
    const { status, error } = await refusal(await desired(request("/desired", unregistered)));
    expect(status).toBe(409);
    expect(error.code).toBe("CONFLICT");
    const who = await whoami(request("/whoami", unregistered));
    expect(who.status).toBe(200);
    expect(who.headers.get("cache-control")).toBe("no-store");
  });
});

describe("agent routes: errors mapped once", () => {
  const refuses = (error: Error) =>
    agentRoute({ access: "registered", body: z.object({ batch: z.number() }) }, async () => {
      throw error;
    });
  const post = (route: ReturnType<typeof refuses>) =>
    route(request("/test", token, { method: "POST", body: JSON.stringify({ batch: 1 }) }));

  it("src/core's refusal of its input is 400 with its own code and parameter, never a 500", async () => {
    const route = refuses(
      new OptimizerInputError(
        "too_large",
        "batch",
        "(cores + 1) · (batch + 1) = 19726137 table cells exceeds 16777216",
      ),
    );
    expect(await refusal(await post(route))).toEqual({
      status: 400,
      error: {
        code: "too_large",
        parameter: "batch",
        message: "batch: (cores + 1) · (batch + 1) = 19726137 table cells exceeds 16777216",
      },
    });
  });

  it("a DomainError keeps its status and code, its field as the parameter", async () => {
    expect(await refusal(await post(refuses(invalidInput("choose at least one CPU", { field: "cpus" }))))).toEqual({
      status: 400,
      error: { code: "INVALID_INPUT", parameter: "cpus", message: "choose at least one CPU" },
    });
  });

  it("anything unclassified is 500 with a fixed text", async () => {
    expect(await refusal(await post(refuses(new Error('relation "job" does not exist'))))).toEqual({
      status: 500,
      error: { code: "INTERNAL", message: "internal error" },
    });
  });
});
