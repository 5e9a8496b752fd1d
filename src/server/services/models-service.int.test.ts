// The registry's reads and changes against the real database: list and search, one model with its versions, where
// it is deployed, the SLO (validated, audited), and delete (refused while a version is deployed; audited).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zooEntry } from "@/modelzoo/registry";
import { createCaller } from "@/server/api/root";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import { contextFor, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { DomainError } from "@/server/errors/domain-errors";
import {
  deleteModel,
  getModel,
  isVersionInUse,
  listDeploymentsForModel,
  listModels,
  setModelSlo,
} from "./models-service";
import { uploadModel } from "./models-upload-service";

const root = mkdtempSync(join(tmpdir(), "models-service-"));
const store = new FileArtifactStore(root);
const limits = {
  maxBytes: 64 * 1024 ** 2,
  archiveMaxBytes: 64 * 1024 ** 2,
  validateTimeoutMs: 30_000,
  validateMaxRssBytes: 2 * 1024 ** 3,
};
const tag = Math.random().toString(36).slice(2, 7);
let ml: SessionUser;
let caller: { user: SessionUser; requestId: string };

async function uploaded(name: string, zoo: string, description?: string) {
  return uploadModel(
    caller,
    { name, description, body: Readable.from([Buffer.from(zooEntry(zoo).build())]) },
    limits,
    store,
  );
}

async function deployedOn(versionId: string, hostName: string, removed = false) {
  const agent = await db().agent.create({
    data: {
      hostName,
      agentVersion: "test",
      protocolVersion: 1,
      bootId: crypto.randomUUID(),
      topology: {},
      allowedCpus: [0, 1],
      cpuModel: "test cpu",
      memoryBytes: BigInt(1e9),
      ortVersion: "1.30.0",
      inferenceUrl: `http://${hostName}:8000`,
    },
  });
  return db().deployment.create({
    data: {
      agentId: agent.id,
      modelVersionId: versionId,
      cpus: [0, 1],
      generation: 3,
      observedGeneration: 3,
      state: "serving",
      removedAt: removed ? new Date() : null,
    },
  });
}

beforeAll(async () => {
  ml = await insertTestUser(db(), "ml_engineer");
  caller = { user: ml, requestId: `req-${tag}` };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("models service", () => {
  it("lists and searches models by name or description, with the latest version, its size and parameters", async () => {
    await uploaded(`mlp-${tag}`, "tiny-mlp", "a small perceptron");
    await uploaded(`cnn-${tag}`, "tiny-cnn", "convolutions for tests");
    await uploaded(`cnn-${tag}`, "tiny-mlp"); // version 2 of the same model (another file)
    const all = (await listModels()).filter((m) => m.name.endsWith(tag));
    expect(all.map((m) => m.name)).toEqual([`cnn-${tag}`, `mlp-${tag}`]);
    const cnn = all[0]!;
    expect(cnn).toMatchObject({
      versionCount: 2,
      description: "convolutions for tests",
      syntheticWeights: true,
      slo: null,
      latest: { number: 2, source: "upload", syntheticWeights: true, parameters: 17_226 },
    });
    expect(cnn.latest!.bytes).toBe(zooEntry("tiny-mlp").build().length);
    expect((await listModels({ search: `MLP-${tag}` })).map((m) => m.name)).toEqual([`mlp-${tag}`]);
    expect((await listModels({ search: "perceptron" })).map((m) => m.name)).toContain(`mlp-${tag}`);
    expect(await listModels({ search: `nothing-${tag}` })).toEqual([]);
  });

  it("gets one model with its versions, newest first, who made them, and whether each is in use", async () => {
    const cnn = (await listModels({ search: `cnn-${tag}` }))[0]!;
    const model = await getModel(cnn.id);
    expect(model.versions.map((v) => v.number)).toEqual([2, 1]);
    expect(model.versions[1]).toMatchObject({
      source: "upload",
      createdBy: ml.email,
      inUse: false,
      zoo: null,
      syntheticWeights: true,
    });
    expect(model.versions[1]!.analysis?.summary.parameters.parameters).toBe(1_570);
    await expect(getModel("no-such-model")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("sets, changes and clears the SLO; each change audited with before and after", async () => {
    const { id } = (await listModels({ search: `mlp-${tag}` }))[0]!;
    expect(
      await setModelSlo(caller, { modelId: id, slo: { deadlineMs: 50, quantile: 0.99, ttftMs: null, tpotMs: null } }),
    ).toEqual({ deadlineMs: 50, quantile: 0.99, ttftMs: null, tpotMs: null });
    await setModelSlo(caller, { modelId: id, slo: { deadlineMs: 80, quantile: 0.95, ttftMs: 200, tpotMs: 25 } });
    expect((await getModel(id)).slo).toEqual({ deadlineMs: 80, quantile: 0.95, ttftMs: 200, tpotMs: 25 });
    expect(await setModelSlo(caller, { modelId: id, slo: null })).toBeNull();
    const events = await db().auditEvent.findMany({
      where: { action: "model.set_slo", targetId: id },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => [e.before, e.after])).toEqual([
      [{ slo: null }, { slo: { deadlineMs: 50, quantile: 0.99, ttftMs: null, tpotMs: null } }],
      [
        { slo: { deadlineMs: 50, quantile: 0.99, ttftMs: null, tpotMs: null } },
        { slo: { deadlineMs: 80, quantile: 0.95, ttftMs: 200, tpotMs: 25 } },
      ],
      [{ slo: { deadlineMs: 80, quantile: 0.95, ttftMs: 200, tpotMs: 25 } }, { slo: null }],
    ]);
    expect(events[0]).toMatchObject({ actorId: ml.id, requestId: `req-${tag}` });
  });

  it("refuses an SLO that means nothing: quantile outside (0, 1), a non-positive deadline; the router names the field", async () => {
    const { id } = (await listModels({ search: `mlp-${tag}` }))[0]!;
    for (const [slo, field] of [
      [{ deadlineMs: 50, quantile: 1 }, "quantile"],
      [{ deadlineMs: 0, quantile: 0.9 }, "deadlineMs"],
      [{ deadlineMs: Number.NaN, quantile: 0.9 }, "deadlineMs"],
      [{ deadlineMs: 10, quantile: 0.9, ttftMs: -1 }, "ttftMs"],
    ] as const) {
      const error = await setModelSlo(caller, { modelId: id, slo: { ttftMs: null, tpotMs: null, ...slo } }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).details).toEqual({ field });
    }
    const trpc = createCaller(contextFor(ml));
    const error = await trpc.models.setSlo({ modelId: id, deadlineMs: 50, quantile: null }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe("BAD_REQUEST");
    expect((error as TRPCError).message).toMatch(/a deadline needs a quantile/);
    expect((await getModel(id)).slo).toBeNull();
  });

  it("shows where a model is deployed (removed deployments left out) and refuses to delete it while deployed", async () => {
    const cnn = await getModel((await listModels({ search: `cnn-${tag}` }))[0]!.id);
    const v1 = cnn.versions.find((v) => v.number === 1)!;
    expect(await listDeploymentsForModel(cnn.id)).toEqual([]);
    const live = await deployedOn(v1.id, `host-${tag}`);
    await deployedOn(v1.id, `old-host-${tag}`, true);
    expect(await isVersionInUse(v1.id)).toBe(true);
    expect(await listDeploymentsForModel(cnn.id)).toEqual([
      {
        deploymentId: live.id,
        agentId: live.agentId,
        hostName: `host-${tag}`,
        inferenceUrl: `http://host-${tag}:8000`,
        versionNumber: 1,
        generation: 3,
        observedGeneration: 3,
        state: "serving",
      },
    ]);
    expect((await getModel(cnn.id)).versions.find((v) => v.number === 1)!.inUse).toBe(true);
    const refused = await deleteModel(caller, { id: cnn.id }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "CONFLICT" });
    expect((refused as Error).message).toMatch(/version 1 is deployed/);
    expect(await db().model.count({ where: { id: cnn.id } })).toBe(1);
    expect(await db().auditEvent.count({ where: { action: "model.delete", targetId: cnn.id } })).toBe(0);
  });

  it("deletes a model with no deployment: versions gone, artifacts left to GC, audited", async () => {
    const mlp = await getModel((await listModels({ search: `mlp-${tag}` }))[0]!.id);
    const sha = mlp.versions[0]!.sha256;
    expect(await deleteModel(caller, { id: mlp.id })).toEqual({ deletedVersions: 1 });
    expect(await db().model.count({ where: { id: mlp.id } })).toBe(0);
    expect(await db().modelVersion.count({ where: { modelId: mlp.id } })).toBe(0);
    expect(await db().artifact.count({ where: { sha256: sha } })).toBe(1);
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: "model.delete", targetId: mlp.id } });
    expect(event.before).toMatchObject({ name: `mlp-${tag}`, versions: [{ number: 1, sha256: sha }] });
    await expect(deleteModel(caller, { id: mlp.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
