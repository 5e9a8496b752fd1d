// Probes of the access boundaries around the agent API, shared by the integration test
// (src/server/agent-auth/agent-boundaries.int.test.ts) and the access benchmark (bench/access.bench.ts): two agents
// registered over real HTTP, each with its own deployment, a profile job queued for one of them, a signed-in user,
// a revoked, an unregistered and an enrollment token. Every probe says whether the call got through and whether
// it should have; an unauthorized success is a probe that got through where it should not. Positive controls
// (an agent reading its own state) are probes too, so a gate that refuses everything fails as well. Only for tests.
import { randomUUID } from "node:crypto";
import { AGENT_PROTOCOL_VERSION } from "@packrat/contracts/agent-protocol";
import { handleTrpcRequest } from "@/server/api/http-handler";
import { appRouter } from "@/server/api/root";
import { handleAuthRequest } from "@/server/auth/auth-handler";
import { createTestAgentToken, createTestEnrollmentToken, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { revokeAgentToken } from "@/server/services/agent-tokens-service";
import { deployModel, undeployModel } from "@/server/services/deployments-service";
import { createProfileJob } from "@/server/services/profiling-service";
import type { ServiceCaller } from "@/server/services/users-service";
import { insertModelVersion } from "./control-plane-harness";
import { recordSecret, recordSessionCookie } from "./secrets-list";
import { createApiToken } from "@/server/services/api-tokens-service";
import { roles, type Role } from "@packrat/core/security/roles";

export interface ProbeResult {
  group: string;
  check: string;
  status: number;
  allowed: boolean;
  shouldBeAllowed: boolean;
}

interface Agent {
  agentId: string;
  token: string;
  tokenId: string;
  bootId: string;
  host: string;
}
interface Version {
  id: string;
  sha256: string;
}

export interface BoundaryWorld {
  url: string;
  admin: ServiceCaller;
  a: Agent;
  b: Agent;
  versions: { aDeployed: Version; aJob: Version; bDeployed: Version; nowhere: Version };
  deployments: { a: string; b: string };
  /** The profile job queued for agent A (named version: aJob). */
  jobId: string;
  session: { cookie: string; token: string };
  /** `api`: the admin's personal API token (a user's credential, never an agent's). */
  tokens: { revoked: string; unregistered: string; enrollment: string; api: string };
}

export const registration = (host: string, bootId: string = randomUUID()) => ({
  protocolVersion: AGENT_PROTOCOL_VERSION,
  agentVersion: "0.1.0",
  hostName: host,
  bootId,
  topology: {
    sockets: [
      {
        id: 0,
        nodes: [
          {
            id: 0,
            cores: [
              { socket: 0, node: 0, coreId: 0, cpus: [0] },
              { socket: 0, node: 0, coreId: 1, cpus: [1] },
            ],
          },
        ],
      },
    ],
  },
  allowedCpus: [0, 1],
  cpuModel: "probe CPU",
  memoryBytes: 8e9,
  ortVersion: "1.30.0",
});

const heartbeat = (bootId: string, deployments: unknown[] = []) => ({
  bootId,
  revision: 0,
  host: { cpuBusyFraction: 0.1, memoryUsedBytes: 1e9 },
  servingProcessRestarts: 0,
  deployments,
});

const cell = {
  threads: 1,
  batch: 1,
  meanMs: 1,
  p50Ms: 1,
  p90Ms: 1,
  p99Ms: 1,
  stddevMs: 0,
  ciHalfWidthMs: 0,
  iterations: 10,
  stopReason: "probe",
  peakRssBytes: null,
  histogram: "",
};

async function call(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function registerAgent(url: string, admin: ServiceCaller, host: string): Promise<Agent> {
  const { token, id: tokenId } = await createTestAgentToken(admin, { name: host });
  const bootId = randomUUID();
  const response = await call(url, "POST", "/api/agent/v1/register", bearer(token), registration(host, bootId));
  if (response.status !== 200) throw new Error(`registering ${host}: ${response.status} ${await response.text()}`);
  const { agentId } = (await response.json()) as { agentId: string };
  return { agentId, token, tokenId, bootId, host };
}

async function signIn(email: string, password: string): Promise<{ cookie: string; token: string }> {
  const origin = new URL(env().PACKRAT_PUBLIC_URL).origin;
  const response = await handleAuthRequest(
    new Request(`${origin}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { origin, "content-type": "application/json", "x-forwarded-for": "192.0.2.77" },
      body: JSON.stringify({ email, password }),
    }),
  );
  const setCookie = response.headers.getSetCookie().find((c) => c.includes("session_token="));
  if (response.status !== 200 || !setCookie) throw new Error(`sign-in failed: ${response.status}`);
  recordSessionCookie(setCookie);
  const cookie = setCookie.split(";")[0]!;
  return { cookie, token: decodeURIComponent(cookie.slice(cookie.indexOf("=") + 1)).split(".")[0]! };
}

/** Builds the world on the agent API served at `url`; model files go under `dataDir`/artifacts (PACKRAT_DATA_DIR). */
export async function buildBoundaryWorld(url: string, dataDir: string): Promise<BoundaryWorld> {
  const prisma = db();
  const adminUser = await insertTestUser(prisma, "admin");
  const admin: ServiceCaller = { user: adminUser, requestId: "access-probes" };
  const suffix = randomUUID().slice(0, 8);
  const a = await registerAgent(url, admin, `probe-a-${suffix}`);
  const b = await registerAgent(url, admin, `probe-b-${suffix}`);
  // Distinct bytes, so distinct artifacts; the agent API never parses them.
  const file = (label: string) => new TextEncoder().encode(`probe model ${label} ${suffix}`);
  const aV1 = await insertModelVersion(dataDir, `probe-a-${suffix}`, file("a1"));
  const aV2 = await insertModelVersion(dataDir, `probe-a-${suffix}`, file("a2"), 2, aV1.modelId);
  const bV1 = await insertModelVersion(dataDir, `probe-b-${suffix}`, file("b1"));
  const cV1 = await insertModelVersion(dataDir, `probe-c-${suffix}`, file("c1"));
  const deploymentA = await deployModel(admin, { agentId: a.agentId, modelVersionId: aV1.id, cpus: [0, 1] });
  const deploymentB = await deployModel(admin, { agentId: b.agentId, modelVersionId: bV1.id, cpus: [0, 1] });
  // A's job profiles the other version of A's model: its file is A's to fetch while the job lives.
  const { jobId } = await createProfileJob(admin, {
    deploymentId: deploymentA.id,
    modelVersionId: aV2.id,
    threads: [1],
    batches: [1],
  });
  const revoked = await createTestAgentToken(admin, { name: `probe-revoked-${suffix}` });
  await call(url, "POST", "/api/agent/v1/register", bearer(revoked.token), registration(`probe-r-${suffix}`));
  await revokeAgentToken(admin, { id: revoked.id });
  const unregistered = await createTestAgentToken(admin, { name: `probe-unregistered-${suffix}` });
  const enrollment = await createTestEnrollmentToken(admin, { name: `probe-enrollment-${suffix}` });
  const session = await signIn(adminUser.email, adminUser.password);
  const api = (await createApiToken(admin, { name: `probe-api-${suffix}`, role: "admin", expiresInDays: 1 })).token;
  recordSecret("api token", api);
  const version = (v: { id: string; artifactSha256: string }) => ({ id: v.id, sha256: v.artifactSha256 });
  return {
    url,
    admin,
    a,
    b,
    jobId,
    session,
    versions: { aDeployed: version(aV1), aJob: version(aV2), bDeployed: version(bV1), nowhere: version(cV1) },
    deployments: { a: deploymentA.id, b: deploymentB.id },
    tokens: { revoked: revoked.token, unregistered: unregistered.token, enrollment: enrollment.token, api },
  };
}

/**
 * Every route of the agent API, with a well-formed request (so a refusal is about who asks, not what). `dir` is
 * the route's folder under src/app/api/agent/v1: the integration test fails when a route exists that is not here.
 */
export function agentRoutes(
  w: BoundaryWorld,
): Array<{ name: string; dir: string; method: string; path: string; body?: unknown }> {
  return [
    {
      name: "register",
      dir: "register",
      method: "POST",
      path: "/api/agent/v1/register",
      body: registration(`probe-intruder-${randomUUID().slice(0, 8)}`),
    },
    {
      name: "heartbeat",
      dir: "heartbeat",
      method: "POST",
      path: "/api/agent/v1/heartbeat",
      body: heartbeat(randomUUID()),
    },
    {
      name: "events",
      dir: "events",
      method: "POST",
      path: "/api/agent/v1/events",
      body: {
        bootId: randomUUID(),
        deployments: [{ deploymentId: "probe-no-such-deployment", observedGeneration: 0, state: "applying" }],
      },
    },
    {
      name: "metrics",
      dir: "metrics",
      method: "POST",
      path: "/api/agent/v1/metrics",
      body: {
        bootId: randomUUID(),
        host: { cpuBusyFraction: 0.1, memoryUsedBytes: 1e9 },
        servingProcessRestarts: 0,
        deployments: [],
      },
    },
    { name: "desired", dir: "desired", method: "GET", path: "/api/agent/v1/desired?after=0" },
    { name: "whoami", dir: "whoami", method: "GET", path: "/api/agent/v1/whoami" },
    {
      name: "artifacts",
      dir: "artifacts/[sha256]",
      method: "GET",
      path: `/api/agent/v1/artifacts/${w.versions.aDeployed.sha256}`,
    },
    { name: "jobs/next", dir: "jobs/next", method: "GET", path: "/api/agent/v1/jobs/next" },
    {
      name: "jobs/cells",
      dir: "jobs/[id]/cells",
      method: "POST",
      path: `/api/agent/v1/jobs/${w.jobId}/cells`,
      body: { cells: [cell] },
    },
    {
      name: "jobs/finish",
      dir: "jobs/[id]/finish",
      method: "POST",
      path: `/api/agent/v1/jobs/${w.jobId}/finish`,
      body: { outcome: "failed", error: "probe" },
    },
    // A load test's report; the gate refuses before the body is read, so a minimal body will do.
    {
      name: "jobs/result",
      dir: "jobs/[id]/result",
      method: "POST",
      path: `/api/agent/v1/jobs/${w.jobId}/result`,
      body: { report: {} },
    },
    // A plan trial's progress and measurements, well-formed by their contracts.
    {
      name: "jobs/rounds",
      dir: "jobs/[id]/rounds",
      method: "POST",
      path: `/api/agent/v1/jobs/${w.jobId}/rounds`,
      body: { round: 1, rounds: 4 },
    },
    {
      name: "jobs/trial",
      dir: "jobs/[id]/trial",
      method: "POST",
      path: `/api/agent/v1/jobs/${w.jobId}/trial`,
      body: {
        plans: [{ key: "1x1x1", turns: [{ batches: 3, meanMs: 2, dispatchMeanMs: 1.8, instanceMeanMs: 1.5 }] }],
        stoppedEarly: false,
        durationMs: 1000,
      },
    },
  ];
}

/** Credentials that are not an agent's: each must get 401 on every route (an enrollment token only registers). */
export function nonAgentIdentities(
  w: BoundaryWorld,
): Array<{ name: string; headers: Record<string, string>; routes?: "all-but-register" }> {
  return [
    { name: "no credentials", headers: {} },
    { name: "Basic auth", headers: { authorization: "Basic YWRtaW46cGFja3JhdC1kZW1v" } },
    { name: "unknown token", headers: bearer(`prat_${"x".repeat(43)}`) },
    { name: "user session cookie", headers: { cookie: w.session.cookie } },
    { name: "user session token as bearer", headers: bearer(w.session.token) },
    { name: "user session cookie + revoked token", headers: { cookie: w.session.cookie, ...bearer(w.tokens.revoked) } },
    { name: "revoked agent token", headers: bearer(w.tokens.revoked) },
    { name: "enrollment token", headers: bearer(w.tokens.enrollment), routes: "all-but-register" },
    { name: "an admin's personal API token", headers: bearer(w.tokens.api) },
  ];
}

/** Every route × every non-agent credential: allowed only if the status is 2xx (all should be 401). */
export async function probeNonAgentIdentities(w: BoundaryWorld): Promise<ProbeResult[]> {
  const results: ProbeResult[] = [];
  for (const identity of nonAgentIdentities(w)) {
    for (const route of agentRoutes(w)) {
      if (identity.routes === "all-but-register" && route.name === "register") continue;
      const response = await call(w.url, route.method, route.path, identity.headers, route.body);
      await response.body?.cancel();
      results.push({
        group: "agent API, non-agent credentials",
        check: `${route.name} with ${identity.name}`,
        status: response.status,
        allowed: response.ok,
        shouldBeAllowed: false,
      });
    }
  }
  return results;
}

/** Every tRPC procedure with agent A's token (and the Origin a mutation needs): only public procedures answer. */
export async function probeTrpcWithAgentToken(
  w: BoundaryWorld,
  isPublic: (path: string) => boolean,
): Promise<ProbeResult[]> {
  const origin = new URL(env().PACKRAT_PUBLIC_URL).origin;
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
  const results: ProbeResult[] = [];
  for (const path of Object.keys(procedures).sort()) {
    const mutation = procedures[path]!._def.type === "mutation";
    const response = await handleTrpcRequest(
      new Request(
        `${origin}/api/trpc/${path}`,
        mutation
          ? {
              method: "POST",
              headers: { ...bearer(w.a.token), origin, "content-type": "application/json" },
              body: "{}",
            }
          : { method: "GET", headers: bearer(w.a.token) },
      ),
    );
    await response.body?.cancel();
    // 401 and 403 are the gate; anything else (200, or 400 for the empty input) got past it.
    const allowed = response.status !== 401 && response.status !== 403;
    results.push({
      group: "tRPC, agent token",
      check: path,
      status: response.status,
      allowed,
      shouldBeAllowed: isPublic(path),
    });
  }
  return results;
}

/**
 * Every tRPC procedure with a personal API token of each role (a user of that role), over the HTTP handler and,
 * for mutations, without an Origin (a token caller is exempt from that check, never from the role gate).
 */
export async function probeTrpcWithApiTokens(mayCall: (path: string, role: Role) => boolean): Promise<ProbeResult[]> {
  const origin = new URL(env().PACKRAT_PUBLIC_URL).origin;
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
  const results: ProbeResult[] = [];
  for (const role of roles) {
    const user = await insertTestUser(db(), role);
    const { token } = await createApiToken(
      { user, requestId: "access-probes" },
      { name: `probe-${role}`, role, expiresInDays: 1 },
    );
    recordSecret("api token", token);
    for (const path of Object.keys(procedures).sort()) {
      const mutation = procedures[path]!._def.type === "mutation";
      const response = await handleTrpcRequest(
        new Request(
          `${origin}/api/trpc/${path}`,
          mutation
            ? { method: "POST", headers: { ...bearer(token), "content-type": "application/json" }, body: "{}" }
            : { method: "GET", headers: bearer(token) },
        ),
      );
      await response.body?.cancel();
      const allowed = response.status !== 401 && response.status !== 403;
      results.push({
        group: "tRPC, personal API token",
        check: `${path} with a ${role} token`,
        status: response.status,
        allowed,
        shouldBeAllowed: mayCall(path, role),
      });
    }
  }
  return results;
}

const result = (
  group: string,
  check: string,
  status: number,
  allowed: boolean,
  shouldBeAllowed: boolean,
): ProbeResult => ({ group, check, status, allowed, shouldBeAllowed });

async function desiredOf(w: BoundaryWorld, agent: Agent) {
  const response = await call(w.url, "GET", "/api/agent/v1/desired?after=0", bearer(agent.token));
  const body =
    response.status === 200
      ? ((await response.json()) as { deployments: Array<{ deploymentId: string; artifactSha256: string }> })
      : { deployments: [] };
  return { status: response.status, deployments: body.deployments };
}

async function fetchArtifact(w: BoundaryWorld, token: string, sha256: string): Promise<number> {
  const response = await call(w.url, "GET", `/api/agent/v1/artifacts/${sha256}`, bearer(token));
  await response.body?.cancel();
  return response.status;
}

/**
 * Agent A against agent B, in order: desired state, artifacts while A's job is queued, the job claim, cells and
 * finish on another agent's job, a heartbeat about another agent's deployment, artifacts after A's job ended
 * and after A's deployment was removed. Changes the world (claims, finishes and undeploys).
 */
export async function probeCrossAgent(w: BoundaryWorld): Promise<ProbeResult[]> {
  const group = "agent API, agent A vs agent B";
  const out: ProbeResult[] = [];
  const { a, b, versions: v } = w;

  for (const [self, other, own, foreign] of [
    [a, b, w.deployments.a, w.deployments.b],
    [b, a, w.deployments.b, w.deployments.a],
  ] as const) {
    const desired = await desiredOf(w, self);
    const ids = desired.deployments.map((d) => d.deploymentId);
    out.push(
      result(group, `${self === a ? "A" : "B"} reads its own desired state`, desired.status, ids.includes(own), true),
    );
    out.push(
      result(
        group,
        `${self === a ? "A" : "B"} sees ${other === a ? "A" : "B"}'s deployment in its desired state`,
        desired.status,
        ids.includes(foreign),
        false,
      ),
    );
  }

  const artifacts = async (when: string, cases: Array<[Agent | "unregistered", Version, boolean, string]>) => {
    for (const [agent, version, should, what] of cases) {
      const status = await fetchArtifact(
        w,
        agent === "unregistered" ? w.tokens.unregistered : agent.token,
        version.sha256,
      );
      const who = agent === "unregistered" ? "an unregistered token" : agent === a ? "A" : "B";
      out.push(result(group, `${when}: ${who} fetches ${what}`, status, status === 200, should));
    }
  };
  await artifacts("job queued", [
    [a, v.aDeployed, true, "its deployed version"],
    [a, v.aJob, true, "the version its queued job names"],
    [a, v.bDeployed, false, "B's deployed version"],
    [a, v.nowhere, false, "a version deployed nowhere"],
    [b, v.bDeployed, true, "its deployed version"],
    [b, v.aDeployed, false, "A's deployed version"],
    [b, v.aJob, false, "the version A's job names"],
    [b, v.nowhere, false, "a version deployed nowhere"],
    ["unregistered", v.aDeployed, false, "A's deployed version"],
  ]);
  const unknown = await fetchArtifact(w, a.token, "0".repeat(64));
  out.push(result(group, "A fetches a hash no version has", unknown, unknown === 200, false));

  // B long-polls for a job while A's is queued: it must not get it.
  const bNext = await call(w.url, "GET", "/api/agent/v1/jobs/next", bearer(b.token));
  const bJob = ((await bNext.json()) as { job: { id: string } | null }).job;
  out.push(result(group, "B claims A's queued job", bNext.status, bJob?.id === w.jobId, false));
  const aNext = await call(w.url, "GET", "/api/agent/v1/jobs/next", bearer(a.token));
  const aJob = ((await aNext.json()) as { job: { id: string; params: { artifactSha256: string } } | null }).job;
  out.push(
    result(
      group,
      "A claims its own job",
      aNext.status,
      aJob?.id === w.jobId && aJob.params.artifactSha256 === v.aJob.sha256,
      true,
    ),
  );

  await artifacts("job running", [
    [a, v.aJob, true, "the version its running job names"],
    [b, v.aJob, false, "the version A's running job names"],
  ]);

  const cells = await call(w.url, "POST", `/api/agent/v1/jobs/${w.jobId}/cells`, bearer(b.token), { cells: [cell] });
  await cells.body?.cancel();
  const stored = await db().profileCell.count({ where: { profile: { jobId: w.jobId } } });
  out.push(result(group, "B posts cells to A's job", cells.status, cells.ok || stored > 0, false));
  const finishB = await call(w.url, "POST", `/api/agent/v1/jobs/${w.jobId}/finish`, bearer(b.token), {
    outcome: "failed",
    error: "not mine",
  });
  await finishB.body?.cancel();
  const jobAfter = await db().job.findUniqueOrThrow({ where: { id: w.jobId } });
  out.push(result(group, "B finishes A's job", finishB.status, finishB.ok || jobAfter.state !== "running", false));

  // B reports A's deployment as failed at generation 1: A's deployment must not change.
  const before = await db().deployment.findUniqueOrThrow({ where: { id: w.deployments.a } });
  const report = {
    deploymentId: w.deployments.a,
    observedGeneration: 1,
    state: "failed",
    failureReason: "forged by B",
    intervalMs: 1000,
    requests: { completed: 0, rejected: 0, withinSlo: 0 },
    rows: { completed: 0, rejected: 0 },
    histograms: {},
    queueDepthRows: 0,
    instances: [],
    affinityOk: true,
  };
  const forged = await call(w.url, "POST", "/api/agent/v1/heartbeat", bearer(b.token), heartbeat(b.bootId, [report]));
  await forged.body?.cancel();
  const after = await db().deployment.findUniqueOrThrow({ where: { id: w.deployments.a } });
  const changed =
    after.state !== before.state ||
    after.observedGeneration !== before.observedGeneration ||
    after.failureReason !== before.failureReason;
  out.push(result(group, "B's heartbeat changes A's deployment", forged.status, changed, false));
  const forgedEvent = await call(w.url, "POST", "/api/agent/v1/events", bearer(b.token), {
    bootId: b.bootId,
    deployments: [
      { deploymentId: w.deployments.a, observedGeneration: 1, state: "failed", failureReason: "forged by B" },
    ],
  });
  await forgedEvent.body?.cancel();
  const afterEvent = await db().deployment.findUniqueOrThrow({ where: { id: w.deployments.a } });
  const eventChanged =
    afterEvent.state !== before.state ||
    afterEvent.observedGeneration !== before.observedGeneration ||
    afterEvent.failureReason !== before.failureReason;
  out.push(result(group, "B's event changes A's deployment", forgedEvent.status, eventChanged, false));

  const finishA = await call(w.url, "POST", `/api/agent/v1/jobs/${w.jobId}/finish`, bearer(a.token), {
    outcome: "failed",
    error: "probe done",
  });
  await finishA.body?.cancel();
  out.push(result(group, "A finishes its own job", finishA.status, finishA.ok, true));
  await artifacts("job finished", [
    [a, v.aJob, false, "the version its finished job named"],
    [a, v.aDeployed, true, "its deployed version"],
  ]);

  await undeployModel(w.admin, { deploymentId: w.deployments.a });
  await artifacts("deployment removed", [
    [a, v.aDeployed, false, "its removed deployment's version"],
    [b, v.bDeployed, true, "its deployed version"],
  ]);
  return out;
}

/** A token that works everywhere it should, revoked: its very next request on every route is 401. */
export async function probeRevocation(w: BoundaryWorld): Promise<ProbeResult[]> {
  const group = "agent API, revoked at once";
  const out: ProbeResult[] = [];
  const fresh = await registerAgent(w.url, w.admin, `probe-revoke-${randomUUID().slice(0, 8)}`);
  const whoami = await call(w.url, "GET", "/api/agent/v1/whoami", bearer(fresh.token));
  await whoami.body?.cancel();
  out.push(result(group, "whoami before revocation", whoami.status, whoami.ok, true));
  await revokeAgentToken(w.admin, { id: fresh.tokenId });
  for (const route of agentRoutes(w)) {
    const body =
      route.name === "register"
        ? registration(fresh.host)
        : route.name === "heartbeat"
          ? heartbeat(fresh.bootId)
          : route.body;
    const response = await call(w.url, route.method, route.path, bearer(fresh.token), body);
    await response.body?.cancel();
    out.push(result(group, `${route.name} right after revocation`, response.status, response.status !== 401, false));
  }
  return out;
}

export const unauthorizedSuccesses = (results: ProbeResult[]) => results.filter((r) => r.allowed && !r.shouldBeAllowed);
export const wrongOutcomes = (results: ProbeResult[]) => results.filter((r) => r.allowed !== r.shouldBeAllowed);
