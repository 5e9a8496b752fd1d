// Access boundaries, counted: the tRPC access matrix (every procedure as anonymous and as each role, as
// src/server/api/access-matrix.int.test.ts does), every procedure with an agent token, and the agent-API probes of
// test/access-probes.ts (non-agent credentials on every route, agent A against agent B, revocation). The figure
// that matters is unauthorized successes (goal 0); wrong refusals (a positive control refused) are counted too,
// so a gate that refuses everything does not pass. Counts, not timings: there is no baseline to divide by.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TRPCError } from "@trpc/server";
import { migrate } from "../src/server/db/migrator";
import { createDatabase, findTestPostgres } from "../test/find-postgres";
import type { ProbeResult } from "../test/access-probes";
import type { Benchmark, BenchTable } from "./types";
import { testEnv } from "../test/test-env";

type Caller = "anonymous" | "ml_engineer" | "sre" | "manager" | "admin";

const bench: Benchmark = {
  name: "access",
  description: "Access matrix and agent-API boundaries: checks made and unauthorized successes (goal 0)",
  async run() {
    const server = await findTestPostgres(testEnv);
    const database = await createDatabase(server.adminUrl, "packrat_bench_access");
    const dataDir = mkdtempSync(join(tmpdir(), "packrat-bench-access-"));
    const saved = { ...testEnv };
    // The process's Prisma client and pool live on globalThis: closed here, the next db() connects to this database.
    const { resetDbForTests } = await import("../src/server/db/client");
    let routeServer: { close: () => Promise<void> } | undefined;
    try {
      await migrate(database.url, resolve("prisma/migrations"));
      // The server modules read these through env(); a fresh Prisma client for this database.
      Object.assign(testEnv, {
        DATABASE_URL: database.url,
        PACKRAT_DATA_DIR: dataDir,
        PACKRAT_PUBLIC_URL: "http://localhost:3999",
        BETTER_AUTH_SECRET: "bench-access-secret-0123456789abcdef0123",
        LONG_POLL_HOLD_MS: "300",
        LOG_LEVEL: "error",
      });
      await resetDbForTests();
      const { resetEnvForTests } = await import("../src/server/env");
      const { resetAuthForTests } = await import("../src/server/auth/auth");
      const { usePasswordHasherForTests: plugHasher } = await import("../src/server/auth/password");
      const { cheapHasher, contextFor, insertTestUser } = await import("../src/server/auth/test-support");
      const { roles } = await import("@packrat/core/security/roles");
      const { appRouter, createCaller } = await import("../src/server/api/root");
      const { accessMatrix } = await import("../src/server/api/access-matrix");
      const { db } = await import("../src/server/db/client");
      const probes = await import("../test/access-probes");
      const { agentApiRoutes, startRouteServer } = await import("../test/control-plane-harness");
      resetEnvForTests();
      resetAuthForTests();
      plugHasher(cheapHasher); // fixture users in microseconds, not scrypt's 150 ms

      // 1. The tRPC matrix: procedures × (anonymous + roles). Allowed = got past the gate (any error but
      // UNAUTHORIZED/FORBIDDEN), should = the matrix says so.
      const users = Object.fromEntries(
        await Promise.all(roles.map(async (r) => [r, await insertTestUser(db(), r)] as const)),
      );
      const callers: Caller[] = ["anonymous", ...roles];
      const paths = Object.keys(appRouter._def.procedures).sort();
      const matrix: ProbeResult[] = [];
      for (const path of paths) {
        const allowedRoles = accessMatrix[path];
        for (const caller of callers) {
          const client = createCaller(contextFor(caller === "anonymous" ? null : users[caller]!)) as unknown as Record<
            string,
            unknown
          >;
          const procedure = path
            .split(".")
            .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], client) as (
            input: unknown,
          ) => Promise<unknown>;
          let allowed = true;
          try {
            await procedure(undefined);
          } catch (error) {
            if (error instanceof TRPCError && (error.code === "UNAUTHORIZED" || error.code === "FORBIDDEN"))
              allowed = false;
          }
          const should = allowedRoles === "public" || (caller !== "anonymous" && !!allowedRoles?.includes(caller));
          matrix.push({
            group: "tRPC, procedures × roles",
            check: `${path} as ${caller}`,
            status: allowed ? 200 : 403,
            allowed,
            shouldBeAllowed: should,
          });
        }
      }

      // 2. The agent API over real HTTP, and agent tokens on tRPC.
      const started = await startRouteServer(await agentApiRoutes());
      routeServer = started;
      const world = await probes.buildBoundaryWorld(started.url, dataDir);
      const agentOnTrpc = await probes.probeTrpcWithAgentToken(world, (path) => accessMatrix[path] === "public");
      const apiTokens = await probes.probeTrpcWithApiTokens(
        (path, role) =>
          accessMatrix[path] === "public" || !!(accessMatrix[path] as readonly string[] | undefined)?.includes(role),
      );
      const nonAgent = await probes.probeNonAgentIdentities(world);
      const crossAgent = await probes.probeCrossAgent(world);
      const revocation = await probes.probeRevocation(world);

      const groups: Array<[string, ProbeResult[]]> = [
        ["tRPC, procedures × (anonymous + 4 roles)", matrix],
        ["tRPC, every procedure with an agent token", agentOnTrpc],
        ["tRPC, every procedure with a personal API token of each role", apiTokens],
        ["agent API, every route × non-agent credentials", nonAgent],
        ["agent API, agent A vs agent B (incl. positive controls)", crossAgent],
        ["agent API, revoked token on every route", revocation],
      ];
      const all = groups.flatMap(([, results]) => results);
      const unauthorized = probes.unauthorizedSuccesses(all);
      const wrongRefusals = all.filter((r) => r.shouldBeAllowed && !r.allowed);
      const agentChecks = agentOnTrpc.length + nonAgent.length + crossAgent.length + revocation.length;
      const table: BenchTable = {
        title: "Checks by group",
        columns: ["group", "checks", "should be allowed", "unauthorized successes", "wrong refusals"],
        rows: groups.map(([name, results]) => [
          name,
          results.length,
          results.filter((r) => r.shouldBeAllowed).length,
          probes.unauthorizedSuccesses(results).length,
          results.filter((r) => r.shouldBeAllowed && !r.allowed).length,
        ]),
      };
      const failures: BenchTable = {
        title: "Disagreements (empty when every check held)",
        columns: ["group", "check", "status", "allowed", "should be allowed"],
        rows: probes
          .wrongOutcomes(all)
          .map((r) => [r.group, r.check, r.status, String(r.allowed), String(r.shouldBeAllowed)]),
      };
      return {
        figures: [
          { label: "tRPC procedures", value: paths.length, unit: "procedures" },
          {
            label: "access matrix size (procedures × 5 callers: anonymous + 4 roles)",
            value: matrix.length,
            unit: "checks",
          },
          {
            label: "agent-boundary checks (agent token on tRPC, agent API routes, cross-agent, revocation)",
            value: agentChecks,
            unit: "checks",
          },
          { label: "checks in all", value: all.length, unit: "checks" },
          { label: "unauthorized successes (goal 0)", value: unauthorized.length, unit: "calls" },
          { label: "wrong refusals (positive controls refused)", value: wrongRefusals.length, unit: "calls" },
        ],
        tables: [table, failures],
        notes: [
          "A check is allowed when the call got past the gate (tRPC: any outcome but UNAUTHORIZED/FORBIDDEN; agent API: a 2xx, or the effect it should not have had, e.g. another agent's deployment in the desired state).",
          `Agent API probes: two agents registered over HTTP, each with a deployment, a profile job queued for one; a signed-in admin, a revoked, an unregistered and an enrollment token (test/access-probes.ts). PostgreSQL: ${server.source}.`,
          "Counts, not timings: there is no baseline to divide by. bench/reliability.bench.ts (issue #23) did not exist when this was written, so this section is its own file, bench/results/access.json.",
        ],
      };
    } finally {
      await routeServer?.close();
      await resetDbForTests();
      await database.drop();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      for (const key of Object.keys(testEnv)) if (!(key in saved)) delete testEnv[key];
      Object.assign(testEnv, saved);
    }
  },
};

export default bench;
