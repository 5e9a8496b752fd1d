// The agent API's boundaries over real HTTP (the route handlers served by test/route-server.ts), with two agents
// registered the way agents register: a user's session is no agent anywhere, an agent token is no user on tRPC,
// a revoked token fails on its next request, and one agent cannot read or touch the other's desired state, jobs,
// deployments or model files. The probes live in test/access-probes.ts (bench/access.bench.ts counts them too).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessMatrix } from "@/server/api/access-matrix";
import { appRouter } from "@/server/api/root";
import { resetAuthForTests } from "@/server/auth/auth";
import { usePasswordHasherForTests } from "@/server/auth/password";
import { cheapHasher } from "@/server/auth/test-support";
import { resetEnvForTests } from "@/server/env";
import {
  agentRoutes,
  buildBoundaryWorld,
  probeCrossAgent,
  probeNonAgentIdentities,
  probeRevocation,
  probeTrpcWithAgentToken,
  wrongOutcomes,
  type BoundaryWorld,
  type ProbeResult,
} from "../../../test/access-probes";
import { agentApiRoutes, startRouteServer } from "../../../test/control-plane-harness";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-boundaries-"));
let server: Awaited<ReturnType<typeof startRouteServer>>;
let world: BoundaryWorld;

beforeAll(async () => {
  Object.assign(testEnv, {
    PACKRAT_DATA_DIR: dataDir,
    PACKRAT_PUBLIC_URL: "http://localhost:3999",
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    LONG_POLL_HOLD_MS: "300",
    LOG_LEVEL: "error",
  });
  resetEnvForTests();
  resetAuthForTests();
  usePasswordHasherForTests(cheapHasher);
  server = await startRouteServer(await agentApiRoutes());
  world = await buildBoundaryWorld(server.url, dataDir);
});

afterAll(async () => {
  usePasswordHasherForTests(undefined);
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The folders under src/app/api/agent/v1 that hold a route.ts: the agent API as Next serves it. */
function routeDirs(): string[] {
  const root = resolve("src/app/api/agent/v1");
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name === "route.ts")
    .map((e) => relative(root, e.parentPath))
    .sort();
}

/** One line per probe, so a failure shows every disagreement at once. */
const lines = (results: ProbeResult[]) => results.map((r) => `${r.check}: ${r.status}`);

describe("agent API boundaries", () => {
  it("every agent route answers 401 to a user's session (cookie or token), a personal API token, no, unknown, revoked and enrollment tokens", async () => {
    // Every route Next serves is probed: a new route fails here until test/access-probes.ts lists it.
    const routes = agentRoutes(world);
    expect(routes.map((r) => r.dir).sort()).toEqual(routeDirs());
    const results = await probeNonAgentIdentities(world);
    // Each route × 8 credentials, plus every route but register for the enrollment token (register is its place).
    expect(results).toHaveLength(routes.length * 8 + routes.length - 1);
    expect(lines(results.filter((r) => r.status !== 401))).toEqual([]);
  });

  it("an agent token gets no further than a stranger on tRPC: every non-public procedure is UNAUTHORIZED", async () => {
    const results = await probeTrpcWithAgentToken(world, (path) => accessMatrix[path] === "public");
    expect(results.length).toBe(Object.keys(appRouter._def.procedures).length);
    expect(lines(wrongOutcomes(results))).toEqual([]);
    expect(lines(results.filter((r) => !r.shouldBeAllowed && r.status !== 401))).toEqual([]);
  });

  it("keeps agents apart: desired state, jobs, cells, heartbeats, and model files only of its own deployments and jobs (403)", async () => {
    const results = await probeCrossAgent(world);
    expect(lines(wrongOutcomes(results))).toEqual([]);
    // The positive controls ran: each agent read its own state and files.
    expect(results.filter((r) => r.shouldBeAllowed).length).toBeGreaterThanOrEqual(8);
    // A refused model file is 403, whether the hash exists or not (a token cannot probe the registry).
    const refusedFiles = results.filter((r) => r.check.includes("fetches") && !r.shouldBeAllowed);
    expect(refusedFiles.length).toBe(10); // 6 while the job is queued, 1 running, 1 finished, 1 removed, 1 unknown hash
    expect(lines(refusedFiles.filter((r) => r.status !== 403))).toEqual([]);
    // Another agent's job is not found, not merely refused.
    expect(
      lines(results.filter((r) => /B (posts cells to|finishes) A's job/.test(r.check) && r.status !== 404)),
    ).toEqual([]);
  });

  it("a revoked token fails on its very next request, on every route", async () => {
    const results = await probeRevocation(world);
    expect(results[0]).toMatchObject({ check: "whoami before revocation", status: 200 });
    expect(lines(results.slice(1).filter((r) => r.status !== 401))).toEqual([]);
    expect(results).toHaveLength(1 + agentRoutes(world).length);
  });
});
