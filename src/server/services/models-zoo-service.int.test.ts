// Zoo registration as a job of the real runner (pg-boss + Job rows) against the real database: built on the server
// in a child process, staged, validated, analysed, registered; progress visible while it runs; idempotent by
// (builder version, seed) whether asked twice at once, again while it runs, or again after it is done.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED, zooEntry } from "@/modelzoo/registry";
import { createCaller } from "@/server/api/root";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import { useArtifactStoreForTests } from "@/server/artifacts/default-store";
import { contextFor, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { createControlPlaneJobRunner } from "@/server/jobs/control-plane-jobs";
import { setJobRunner } from "@/server/jobs/job-dispatch";
import type { JobRunner } from "@/server/jobs/job-runner";
import { readStoredAnalysis } from "./models-analysis";
import { runZooRegistration, ZOO_REGISTRATION_KIND, type ZooRegistrationParams } from "./models-zoo-service";
import { testEnv } from "../../../test/test-env";

const root = mkdtempSync(join(tmpdir(), "zoo-service-"));
const store = new FileArtifactStore(root);
let runner: JobRunner;
let ml: SessionUser;

async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  useArtifactStoreForTests(store);
  const prisma = db();
  await prisma.job.deleteMany({ where: { kind: ZOO_REGISTRATION_KIND } });
  await prisma.deployment.deleteMany({ where: { modelVersion: { zooName: { not: null } } } });
  await prisma.modelVersion.deleteMany({ where: { zooName: { not: null } } });
  ml = await insertTestUser(prisma, "ml_engineer");
  runner = createControlPlaneJobRunner({
    connectionString: testEnv.DATABASE_URL!,
    leaseMs: 5_000,
    pollingIntervalSeconds: 0.5,
  });
  await runner.start();
  setJobRunner(runner);
});
afterAll(async () => {
  setJobRunner(undefined);
  await runner.stop();
  useArtifactStoreForTests(undefined);
  rmSync(root, { recursive: true, force: true });
});

describe("registering a zoo model", () => {
  it("one click: a job builds, validates, analyses and registers tiny-mlp; progress shows while it runs; audited", async () => {
    const trpc = createCaller(contextFor(ml));
    const asked = await trpc.models.registerZoo({ zooName: "tiny-mlp" });
    expect(asked).toMatchObject({ status: "queued", modelId: null });
    const jobId = asked.jobId!;
    const messages = new Set<string>();
    const job = await until(async () => {
      const j = await trpc.models.job({ id: jobId });
      if (j.progressMessage) messages.add(j.progressMessage);
      return (j.state === "done" || j.state === "failed") && j;
    }, "the registration job");
    expect(job).toMatchObject({ state: "done", progress: 1, attempts: 1, error: null });
    // At least one of the steps' lines was seen on the way (the poll is every 50 ms; the steps take longer).
    expect([...messages].some((m) => /building|validating|analysing|registering/.test(m))).toBe(true);
    const result = job.result as { modelName: string; versionNumber: number; existing: boolean; versionId: string };
    expect(result).toMatchObject({ modelName: "tiny-mlp", existing: false });
    const version = await db().modelVersion.findUniqueOrThrow({
      where: { id: result.versionId },
      include: { artifact: true },
    });
    const built = zooEntry("tiny-mlp").build(DEFAULT_SEED);
    expect(version).toMatchObject({
      source: "zoo",
      zooName: "tiny-mlp",
      zooBuilderVersion: "1",
      zooSeed: DEFAULT_SEED,
      syntheticWeights: true,
      createdById: ml.id,
    });
    // The server's build is byte-for-byte the registry's: same builder, same seed.
    expect(Number(version.artifact.bytes)).toBe(built.length);
    expect(await store.has(version.artifactSha256)).toBe(true);
    // Tiny MLP: 17,226 parameters; 34,048 FLOPs per sample = 2 × (64·128 + 128·64 + 64·10).
    const analysis = readStoredAnalysis(version.analysis)!;
    expect(analysis.summary.parameters.parameters).toBe(17_226);
    expect(analysis.flops).toMatchObject({ status: "counted", perSample: { total: 34_048 } });
    expect(
      await db().auditEvent.count({
        where: { action: "model.register_zoo", after: { path: ["jobId"], equals: jobId } },
      }),
    ).toBe(1);
    expect(await db().auditEvent.count({ where: { action: "model_version.create", targetId: version.modelId } })).toBe(
      1,
    );
    expect(readdirSync(join(root, "staging"))).toEqual([]);

    // Asking again: the version, no new job.
    expect(await trpc.models.registerZoo({ zooName: "tiny-mlp" })).toEqual({
      status: "registered",
      modelId: version.modelId,
      versionNumber: version.number,
      jobId: null,
    });
    const catalog = await trpc.models.zooCatalog();
    expect(catalog.find((e) => e.name === "tiny-mlp")).toMatchObject({
      registered: [{ seed: DEFAULT_SEED, modelId: version.modelId, versionNumber: version.number }],
      job: null,
      weights: "synthetic weights",
    });
  });

  it("two requests at once make one job; a second run of the job finds the version and makes nothing", async () => {
    const trpc = createCaller(contextFor(ml));
    const [a, b] = await Promise.all([
      trpc.models.registerZoo({ zooName: "tiny-cnn" }),
      trpc.models.registerZoo({ zooName: "tiny-cnn" }),
    ]);
    expect(a.jobId).not.toBeNull();
    expect(b.jobId).toBe(a.jobId);
    expect(
      await db().job.count({
        where: { kind: ZOO_REGISTRATION_KIND, params: { path: ["zooName"], equals: "tiny-cnn" } },
      }),
    ).toBe(1);
    await until(
      async () => (await db().job.findUniqueOrThrow({ where: { id: a.jobId! } })).state === "done",
      "the tiny-cnn job",
    );
    const params = (await db().job.findUniqueOrThrow({ where: { id: a.jobId! } }))
      .params as unknown as ZooRegistrationParams;
    const again = await runZooRegistration(
      { id: "manual", params, attempt: 2, progress: async () => undefined },
      { store },
    );
    expect(again.existing).toBe(true);
    expect(await db().modelVersion.count({ where: { zooName: "tiny-cnn" } })).toBe(1);
    // Another seed is another registration: version 2 of the same model.
    const seeded = await trpc.models.registerZoo({ zooName: "tiny-cnn", seed: 7 });
    await until(
      async () => (await db().job.findUniqueOrThrow({ where: { id: seeded.jobId! } })).state === "done",
      "the seed-7 job",
    );
    // Numbered after whatever the model "tiny-cnn" already had (other tests may have made one): n, then n + 1.
    const zooVersions = await db().modelVersion.findMany({
      where: { zooName: "tiny-cnn" },
      orderBy: { number: "asc" },
    });
    const n = zooVersions[0]!.number;
    expect(zooVersions.map((v) => [v.number, v.zooSeed])).toEqual([
      [n, DEFAULT_SEED],
      [n + 1, 7],
    ]);
    const row = (await trpc.models.zooCatalog()).find((e) => e.name === "tiny-cnn")!;
    expect(row.registered.map((r) => [r.seed, r.versionNumber])).toEqual([
      [DEFAULT_SEED, n],
      [7, n + 1],
    ]);
    expect(row.job).toBeNull();
  });

  it("refuses an unknown zoo model, naming the known ones", async () => {
    const error = await createCaller(contextFor(ml))
      .models.registerZoo({ zooName: "alexnet" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "BAD_REQUEST" });
    expect((error as Error).message).toMatch(/no zoo model "alexnet"; known: tiny-mlp, tiny-cnn/);
  });
});
