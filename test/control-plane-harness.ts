// Integration-test harness for the agent API: the real route handlers over real HTTP (no Next build), real agent
// processes, and registry rows for test models. Only for tests.
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createTestAgentToken } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import { deployModel } from "@/server/services/deployments-service";
import type { ServiceCaller } from "@/server/services/users-service";
import { freePort, spawnTsx } from "../apps/agent/src/test-agent-process";
import { startRouteServer, type Route } from "./route-server";

export async function agentApiRoutes(): Promise<Route[]> {
  const register = await import("@/app/api/agent/v1/register/route");
  const heartbeat = await import("@/app/api/agent/v1/heartbeat/route");
  const events = await import("@/app/api/agent/v1/events/route");
  const metrics = await import("@/app/api/agent/v1/metrics/route");
  const desired = await import("@/app/api/agent/v1/desired/route");
  const whoami = await import("@/app/api/agent/v1/whoami/route");
  const artifacts = await import("@/app/api/agent/v1/artifacts/[sha256]/route");
  const nextJob = await import("@/app/api/agent/v1/jobs/next/route");
  const cells = await import("@/app/api/agent/v1/jobs/[id]/cells/route");
  const finish = await import("@/app/api/agent/v1/jobs/[id]/finish/route");
  const result = await import("@/app/api/agent/v1/jobs/[id]/result/route");
  const rounds = await import("@/app/api/agent/v1/jobs/[id]/rounds/route");
  const trial = await import("@/app/api/agent/v1/jobs/[id]/trial/route");
  return [
    { method: "POST", pattern: /^\/api\/agent\/v1\/register$/, handler: register.POST },
    { method: "POST", pattern: /^\/api\/agent\/v1\/heartbeat$/, handler: heartbeat.POST },
    { method: "POST", pattern: /^\/api\/agent\/v1\/events$/, handler: events.POST },
    { method: "POST", pattern: /^\/api\/agent\/v1\/metrics$/, handler: metrics.POST },
    { method: "GET", pattern: /^\/api\/agent\/v1\/desired$/, handler: desired.GET },
    { method: "GET", pattern: /^\/api\/agent\/v1\/whoami$/, handler: whoami.GET },
    {
      method: "GET",
      pattern: /^\/api\/agent\/v1\/artifacts\/([0-9a-f]{64})$/,
      handler: artifacts.GET as Route["handler"],
      params: ["sha256"],
    },
    { method: "GET", pattern: /^\/api\/agent\/v1\/jobs\/next$/, handler: nextJob.GET },
    {
      method: "POST",
      pattern: /^\/api\/agent\/v1\/jobs\/([^/]+)\/cells$/,
      handler: cells.POST as Route["handler"],
      params: ["id"],
    },
    {
      method: "POST",
      pattern: /^\/api\/agent\/v1\/jobs\/([^/]+)\/finish$/,
      handler: finish.POST as Route["handler"],
      params: ["id"],
    },
    {
      method: "POST",
      pattern: /^\/api\/agent\/v1\/jobs\/([^/]+)\/result$/,
      handler: result.POST as Route["handler"],
      params: ["id"],
    },
    {
      method: "POST",
      pattern: /^\/api\/agent\/v1\/jobs\/([^/]+)\/rounds$/,
      handler: rounds.POST as Route["handler"],
      params: ["id"],
    },
    {
      method: "POST",
      pattern: /^\/api\/agent\/v1\/jobs\/([^/]+)\/trial$/,
      handler: trial.POST as Route["handler"],
      params: ["id"],
    },
  ];
}

export { startRouteServer };
export type { Route };

export interface TestAgent {
  process: ChildProcess;
  log: () => string;
  url: string;
}

/** `env`: more agent variables, e.g. shortened estimator timings (ESTIMATOR_DECISION_INTERVAL_MS, ESTIMATOR_MIN_DWELL_MS).
 *  `detached`: the agent leads a process group of its own (supervisor and serving process), so a test can kill both. */
export function startAgentProcess(
  controlPlaneUrl: string,
  token: string | null,
  stateDir: string,
  port: number,
  env: Record<string, string> = {},
  options: { detached?: boolean } = {},
): TestAgent {
  // token null: none on the command line (the agent reads AGENT_TOKEN_FILE from `env`, or its state directory).
  const { child, output } = spawnTsx(
    "apps/agent/src/cli.ts",
    ["--control-plane", controlPlaneUrl, ...(token === null ? [] : ["--token", token]), "--port", String(port)],
    {
      env: { AGENT_STATE_DIR: stateDir, RECONNECT_BACKOFF_MIN_MS: "100", RECONNECT_BACKOFF_MAX_MS: "300", ...env },
      detached: options.detached,
    },
  );
  return { process: child, log: output, url: `http://127.0.0.1:${port}` };
}

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((done) => {
    child.once("exit", () => done());
    child.kill(signal);
  });
}

export async function until<T>(
  probe: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A model version whose artifact is in the store under `dataDir` (as the registry would leave it). */
export async function insertModelVersion(
  dataDir: string,
  name: string,
  bytes: Uint8Array,
  number = 1,
  modelId?: string,
) {
  const store = new FileArtifactStore(join(dataDir, "artifacts"));
  const staged = await store.stage(Readable.from([Buffer.from(bytes)]), 1e10);
  await store.commit(staged);
  const prisma = db();
  await prisma.artifact.upsert({
    where: { sha256: staged.sha256 },
    create: { sha256: staged.sha256, bytes: BigInt(staged.bytes) },
    update: {},
  });
  const id = modelId ?? (await prisma.model.create({ data: { name, sloDeadlineMs: 50, sloQuantile: 0.99 } })).id;
  return prisma.modelVersion.create({
    data: { modelId: id, number, artifactSha256: staged.sha256, source: "upload", analysis: {} },
  });
}

/**
 * An agent process on a token of its own (state under `dataDir`/agent), registered, and serving `modelBytes` as a new
 * model on all its CPUs. The process goes into `children` at once, so the test's cleanup stops it even if a wait fails.
 */
export async function serveOnNewAgent(options: {
  controlPlaneUrl: string;
  admin: ServiceCaller;
  dataDir: string;
  tokenName: string;
  modelName: string;
  modelBytes: Uint8Array;
  children: ChildProcess[];
}) {
  const prisma = db();
  const token = await createTestAgentToken(options.admin, { name: options.tokenName });
  const agent = startAgentProcess(
    options.controlPlaneUrl,
    token.token,
    join(options.dataDir, "agent"),
    await freePort(),
  );
  options.children.push(agent.process);
  // Agents of earlier test files registered from this same host: find ours by its token.
  const registered = await until(
    () => prisma.agent.findFirst({ where: { tokens: { some: { id: token.id } } } }),
    "registration",
  );
  const version = await insertModelVersion(options.dataDir, options.modelName, options.modelBytes);
  const deploymentId = (
    await deployModel(options.admin, {
      agentId: registered.id,
      modelVersionId: version.id,
      cpus: registered.allowedCpus,
    })
  ).id;
  await until(
    async () => (await prisma.deployment.findUniqueOrThrow({ where: { id: deploymentId } })).state === "serving",
    "the deployment to serve",
  );
  return { agent, registered, version, deploymentId };
}
