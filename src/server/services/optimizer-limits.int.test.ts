// An optimizer request past the optimizer's limits is the caller's to change: a 300-core budget at B = 65 536 asks
// for more table cells than the optimizer builds, and that is BAD_REQUEST naming the input and the limit (the
// optimizer's own code and parameter on the wire), never a 500 with a fixed text. Mapped once, in the tRPC init
// file; the optimizer service converts nothing itself.
import { createHash, randomUUID } from "node:crypto";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { beforeAll, describe, expect, it } from "vitest";
import { OptimizerInputError } from "@/core/optimizer/errors";
import { MAX_TABLE_CELLS } from "@/core/optimizer/optimize";
import { syntheticTopology } from "@/core/topology/synthetic-topology";
import { appRouter, createCaller } from "@/server/api/root";
import type { SessionUser } from "@/server/auth/session";
import { contextFor, createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { registration } from "../../../test/access-probes";
import { registerWithAgentToken } from "./agent-registration-service";
import { deployModel } from "./deployments-service";
import { hardwareClassOf, runtimeSignatureOf } from "./profiling-service";

const CORES = 300;
const TOO_LARGE_B = 65_536; // the largest B the procedure's schema accepts: (300 + 1) · (65 536 + 1) > 2^24 cells
let manager: SessionUser;
let deploymentId = "";
let profileId = "";

beforeAll(async () => {
  const prisma = db();
  const admin = await insertTestUser(prisma, "admin");
  manager = await insertTestUser(prisma, "manager");
  const caller = { user: admin, requestId: "optimizer-limits" };
  const created = await createTestAgentToken(caller, { name: `optimizer-limits-${randomUUID().slice(0, 8)}` });
  const topology = syntheticTopology({ sockets: 1, coresPerNode: CORES });
  const cpus = Array.from({ length: CORES }, (_, i) => i);
  const { agentId } = await registerWithAgentToken(
    { tokenId: created.id, name: created.name, createdAt: created.createdAt, agentId: null },
    { ...registration(`optimizer-limits-${created.id.slice(0, 8)}`), topology, allowedCpus: cpus },
    "optimizer-limits",
  );
  const sha256 = createHash("sha256").update(`optimizer-limits-${randomUUID()}`).digest("hex");
  await prisma.artifact.create({ data: { sha256, bytes: BigInt(1) } });
  const model = await prisma.model.create({ data: { name: `optimizer-limits-${sha256.slice(0, 8)}` } });
  const version = await prisma.modelVersion.create({
    data: { modelId: model.id, number: 1, artifactSha256: sha256, source: "upload", analysis: {} },
  });
  deploymentId = (await deployModel(caller, { agentId, modelVersionId: version.id, cpus })).id;
  const agent = await prisma.agent.findUniqueOrThrow({ where: { id: agentId } });
  const profile = await prisma.profile.create({
    data: {
      id: randomUUID(),
      modelVersionId: version.id,
      agentId,
      deploymentId,
      hardwareClass: hardwareClassOf(agent),
      runtimeSignature: runtimeSignatureOf(agent),
      cores: CORES,
      threads: [1, 2],
      batches: [1, 2],
      stoppingRule: { kind: "fixed", warmup: 10, iterations: 100 },
      status: "complete",
      cells: {
        create: [
          [1, 1, 1.2],
          [1, 2, 2.2],
          [2, 1, 1.0],
          [2, 2, 1.9],
        ].map(([threads, batch, ms]) => ({
          threads: threads!,
          batch: batch!,
          meanMs: ms!,
          p50Ms: ms!,
          p90Ms: ms!,
          p99Ms: ms!,
          stddevMs: 0.01,
          ciHalfWidthMs: 0.01,
          iterations: 100,
          stopReason: "fixed-count",
          histogram: "",
        })),
      },
    },
  });
  profileId = profile.id;
});

describe("an optimizer request past its limits", () => {
  it("is served below the limit (the fixture is a valid one)", async () => {
    const result = await createCaller(contextFor(manager)).proposals.optimize({
      deploymentId,
      profileId,
      batchSize: 4,
    });
    expect(result.kind).toBe("plan");
  });

  it("is BAD_REQUEST with the optimizer's refusal as its cause and message", async () => {
    const refused = await createCaller(contextFor(manager))
      .proposals.optimize({ deploymentId, profileId, batchSize: TOO_LARGE_B })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(refused).toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining(`exceeds ${MAX_TABLE_CELLS}`),
    });
    expect((refused as { cause?: unknown }).cause).toBeInstanceOf(OptimizerInputError);
  });

  it("answers HTTP 400 whose error data carries the domain code and the parameter at fault", async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { deploymentId, profileId, batchSize: TOO_LARGE_B } }));
    const req = new Request(`http://localhost/api/trpc/proposals.optimize?input=${input}`, {
      headers: { "x-request-id": "optimizer-limits-http" },
    });
    const response = await fetchRequestHandler({
      endpoint: "/api/trpc",
      req,
      router: appRouter,
      createContext: () => contextFor(manager, "optimizer-limits-http"),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      error: { json: { message: string; data: { code: string; domainCode?: string; parameter?: string } } };
    };
    expect(body.error.json.data).toMatchObject({ code: "BAD_REQUEST", domainCode: "too_large", parameter: "batch" });
    expect(body.error.json.message).toMatch(/^batch: \(cores \+ 1\) · \(batch \+ 1\) = \d+ table cells exceeds/);
  });
});
