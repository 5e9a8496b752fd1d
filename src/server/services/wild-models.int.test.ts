// Models shaped like third-party exports, each built in this file's helpers (src/lib/onnx/wild-models.ts) and taken
// the whole way: uploaded (real validation and analysis children), analysed, deployed to a real agent, served
// (answers compared with session.run), profiled (the job's grid), and planned (a batch the model cannot take is
// refused at proposal, naming the tensor). Bad input is refused with the tensor and dimension, nothing stored.
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import * as ort from "onnxruntime-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  constantWeightsModel,
  dynamicImageModel,
  externalWeightsModel,
  ifModel,
  quantizedModel,
  recurrentModel,
  seededFloats,
} from "@/lib/onnx/wild-models";
import { tarArchive, zipArchive, type TestEntry } from "@/lib/model-bundle/test-archives";
import { createCaller } from "@/server/api/root";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import { contextFor, createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { freePort } from "../../../apps/agent/src/test-agent-process";
import {
  agentApiRoutes,
  startAgentProcess,
  startRouteServer,
  stopProcess,
  until,
  type TestAgent,
} from "../../../test/control-plane-harness";
import { deployModel, undeployModel } from "./deployments-service";
import { readStoredAnalysis } from "./models-analysis";
import { uploadModel, type UploadLimits } from "./models-upload-service";
import { ModelRejectedError } from "@/lib/onnx/validate-model";
import { hardwareClassOf, runtimeSignatureOf } from "./profiling-service";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-wild-"));
chmodSync(dataDir, 0o755);
const limits: UploadLimits = {
  maxBytes: 64 * 1024 ** 2,
  archiveMaxBytes: 64 * 1024 ** 2,
  validateTimeoutMs: 60_000,
  validateMaxRssBytes: 2 * 1024 ** 3,
};
let store: FileArtifactStore;
let server: Awaited<ReturnType<typeof startRouteServer>>;
const children: ChildProcess[] = [];
let agent: TestAgent;
let agentId: string;
let cpus: number[];
let admin: SessionUser, ml: SessionUser;
const suffix = () => Math.random().toString(36).slice(2, 8);

async function upload(
  bytes: Uint8Array,
  extra: { dims?: Record<string, number>; batchAxes?: Record<string, number | null> } = {},
) {
  const name = `wild-${suffix()}`;
  const result = await uploadModel(
    { user: ml, requestId: "t" },
    { name, body: Readable.from([Buffer.from(bytes)]), declaredBytes: bytes.length, ...extra },
    limits,
    store,
  );
  return { name, result };
}

/** Deploys on every CPU, waits for it to serve, runs `check`, and undeploys. */
async function served(versionId: string, check: (deploymentId: string) => Promise<void>) {
  const caller = { user: admin, requestId: "t" };
  const { id } = await deployModel(caller, { agentId, modelVersionId: versionId, cpus });
  try {
    const d = await until(async () => {
      const row = await db().deployment.findUniqueOrThrow({ where: { id } });
      if (row.state === "failed") throw new Error(`deployment failed: ${row.failureReason}`);
      return row.state === "serving" ? row : undefined;
    }, "the deployment to serve");
    expect(d.state).toBe("serving");
    await check(id);
  } finally {
    await undeployModel(caller, { deploymentId: id });
  }
}

/** One request through the agent and the same feeds through a local session: the answers must agree. */
async function expectSameAnswer(
  name: string,
  bytes: Uint8Array,
  inputs: Array<{ name: string; shape: number[]; data: number[] }>,
) {
  const response = await fetch(`${agent.url}/v2/models/${name}/infer`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ inputs: inputs.map((i) => ({ ...i, datatype: "FP32" })) }),
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  const session = await ort.InferenceSession.create(Buffer.from(bytes));
  try {
    const local = await session.run(
      Object.fromEntries(inputs.map((i) => [i.name, new ort.Tensor("float32", Float32Array.from(i.data), i.shape)])),
    );
    for (const output of body.outputs as Array<{ name: string; data: number[] }>) {
      const expected = Array.from(local[output.name]!.data as Float32Array);
      expect(output.data.length).toBe(expected.length);
      output.data.forEach((v, i) => expect(Math.abs(v - expected[i]!)).toBeLessThanOrEqual(1e-5));
    }
  } finally {
    await session.release();
  }
}

const floats = (count: number, seed: number) => seededFloats(count, seed);

/**
 * Every row, sent alone (concurrently, so the dispatcher batches them) and all in one request, equals session.run on
 * that row alone. The model has one input x and one output y; `model` is its bytes or a path (external data beside it).
 */
async function expectRowsMatchSessionRun(name: string, model: Uint8Array | string, rowShape: number[], seed: number) {
  const perRow = rowShape.reduce((a, b) => a * b, 1);
  const rows = Array.from({ length: 6 }, (_, i) => floats(perRow, seed + i));
  const infer = async (batch: number[][]) => {
    const response = await fetch(`${agent.url}/v2/models/${name}/infer`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        inputs: [{ name: "x", shape: [batch.length, ...rowShape], datatype: "FP32", data: batch.flat() }],
      }),
    });
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    const y = (body.outputs as Array<{ name: string; data: number[] }>).find((o) => o.name === "y")!.data;
    const perAnswer = y.length / batch.length;
    return batch.map((_, r) => y.slice(perAnswer * r, perAnswer * (r + 1)));
  };
  const alone = await Promise.all(rows.map((row) => infer([row]).then((r) => r[0]!)));
  const together = await infer(rows);
  const session =
    typeof model === "string"
      ? await ort.InferenceSession.create(model)
      : await ort.InferenceSession.create(Buffer.from(model));
  try {
    for (const [r, row] of rows.entries()) {
      const expected = Array.from(
        (await session.run({ x: new ort.Tensor("float32", Float32Array.from(row), [1, ...rowShape]) })).y!
          .data as Float32Array,
      );
      for (const answer of [alone[r]!, together[r]!]) {
        expect(answer.length).toBe(expected.length);
        answer.forEach((v, i) => expect(Math.abs(v - expected[i]!)).toBeLessThanOrEqual(1e-5));
      }
    }
  } finally {
    await session.release();
  }
}

/** Profiles the deployment at t = 1, b ∈ {1, 2} through the agent and plans B = 2 from that profile. */
async function expectProfiledAndPlanned(deploymentId: string) {
  const { profileId } = await createCaller(contextFor(ml)).profiles.create({
    deploymentId,
    threads: [1],
    batches: [1, 2],
  });
  const measured = await until(
    async () => {
      const p = await db().profile.findUniqueOrThrow({ where: { id: profileId }, include: { cells: true } });
      if (p.status === "failed") throw new Error(`profile failed: ${JSON.stringify(p)}`);
      return p.status === "complete" ? p : undefined;
    },
    "the profile to complete",
    120_000,
  );
  expect(measured.cells.map((c) => [c.threads, c.batch]).sort()).toEqual([
    [1, 1],
    [1, 2],
  ]);
  const proposal = await createCaller(contextFor(admin)).proposals.create({
    deploymentId,
    profileId,
    batchSize: 2,
    reason: "the measured plan",
  });
  const items = (await db().proposal.findUniqueOrThrow({ where: { id: proposal.id } })).items as Array<{
    count: number;
    batch: number;
  }>;
  expect(items.reduce((n, g) => n + g.count * g.batch, 0)).toBe(2);
}

beforeAll(async () => {
  Object.assign(testEnv, {
    HEARTBEAT_INTERVAL_MS: "300",
    LONG_POLL_HOLD_MS: "1000",
    PACKRAT_DATA_DIR: dataDir,
    LOG_LEVEL: "error",
  });
  resetEnvForTests();
  store = new FileArtifactStore(join(dataDir, "artifacts"));
  const prisma = db();
  [admin, ml] = await Promise.all([insertTestUser(prisma, "admin"), insertTestUser(prisma, "ml_engineer")]);
  server = await startRouteServer(await agentApiRoutes());
  const { token, id: tokenId } = await createTestAgentToken(
    { user: admin, requestId: "t" },
    { name: `wild-${suffix()}` },
  );
  agent = startAgentProcess(server.url, token, join(dataDir, "agent"), await freePort());
  children.push(agent.process);
  const registered = await until(
    () => prisma.agent.findFirst({ where: { tokens: { some: { id: tokenId } } } }),
    "registration",
  );
  agentId = registered.id;
  cpus = registered.allowedCpus;
}, 120_000);

afterAll(async () => {
  for (const child of children) await stopProcess(child);
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("third-party-shaped models, end to end", () => {
  it("weights in Constant nodes: 144 parameters, served (batched = session.run row by row), profiled and planned", async () => {
    const bytes = constantWeightsModel();
    const { name, result } = await upload(bytes);
    const version = await db().modelVersion.findUniqueOrThrow({ where: { id: result.version.id } });
    expect(readStoredAnalysis(version.analysis)!.summary.parameters.parameters).toBe(144);
    await served(version.id, async (deploymentId) => {
      await expectRowsMatchSessionRun(name, bytes, [8], 10);
      await expectProfiledAndPlanned(deploymentId);
    });
  }, 240_000);

  it("an If with weights in its branches: 64 parameters, served (batched = session.run row by row), profiled and planned", async () => {
    const bytes = ifModel();
    const { name, result } = await upload(bytes);
    const version = await db().modelVersion.findUniqueOrThrow({ where: { id: result.version.id } });
    expect(readStoredAnalysis(version.analysis)!.summary.parameters.parameters).toBe(64);
    await served(version.id, async (deploymentId) => {
      await expectRowsMatchSessionRun(name, bytes, [8], 20);
      await expectProfiledAndPlanned(deploymentId);
    });
  }, 240_000);

  it("a quantized model: 128 uint8 parameters, served (batched = session.run row by row), profiled and planned", async () => {
    const bytes = quantizedModel();
    const { name, result } = await upload(bytes);
    const version = await db().modelVersion.findUniqueOrThrow({ where: { id: result.version.id } });
    expect(readStoredAnalysis(version.analysis)!.summary.parameters.parameters).toBe(128);
    await served(version.id, async (deploymentId) => {
      await expectRowsMatchSessionRun(name, bytes, [16], 30);
      await expectProfiledAndPlanned(deploymentId);
    });
  }, 240_000);

  it("two dynamic image dimensions: refused without values (naming both, nothing stored), served at the values given (batched = session.run row by row), profiled and planned", async () => {
    const bytes = dynamicImageModel();
    const before = await db().model.count();
    await expect(upload(bytes)).rejects.toThrow(
      'give a value for each dynamic dimension besides the batch (dims=p2o.DynamicDimension.1=…,p2o.DynamicDimension.2=…): x[2] "p2o.DynamicDimension.1", x[3] "p2o.DynamicDimension.2"',
    );
    await expect(
      upload(bytes, { dims: { "p2o.DynamicDimension.1": 16, "p2o.DynamicDimension.2": 16, width: 3 } }),
    ).rejects.toThrow('the model has no dynamic dimension "width"');
    await expect(
      upload(bytes, { dims: { "p2o.DynamicDimension.1": 16, "p2o.DynamicDimension.2": 16 }, batchAxes: { x: 1 } }),
    ).rejects.toThrow('x: tensor "x" dimension 1 is fixed at 3');
    expect(await db().model.count()).toBe(before);
    const { name, result } = await upload(bytes, {
      dims: { "p2o.DynamicDimension.1": 16, "p2o.DynamicDimension.2": 12 },
    });
    const version = await db().modelVersion.findUniqueOrThrow({ where: { id: result.version.id } });
    expect(version.servingDims).toEqual({ "p2o.DynamicDimension.1": 16, "p2o.DynamicDimension.2": 12 });
    const analysis = readStoredAnalysis(version.analysis)!;
    expect(analysis.summary.parameters.parameters).toBe(112);
    // 2 × 4·16·12 × 27 + 4·16·12 = 41,472 + 768 = 42,240 FLOPs a sample at 16×12.
    expect(analysis.flops.status === "counted" && analysis.flops.perSample.total).toBe(42_240);
    await served(version.id, async (deploymentId) => {
      await expectRowsMatchSessionRun(name, bytes, [3, 16, 12], 40);
      // The profile asks for the same values, and refuses one the model does not have.
      await expect(
        createCaller(contextFor(ml)).profiles.create({
          deploymentId,
          threads: [1],
          batches: [1],
          dimensions: { height: 3 },
        }),
      ).rejects.toThrow(/no dynamic dimension "height"/);
      await expectProfiledAndPlanned(deploymentId);
    });
  }, 240_000);

  it("recurrent state [layers, batch, hidden] and a scalar input: served unbatched, profiled at b = 1, b > 1 refused at proposal", async () => {
    const bytes = recurrentModel({ scalarInput: true });
    const { name, result } = await upload(bytes);
    const version = await db().modelVersion.findUniqueOrThrow({ where: { id: result.version.id } });
    const analysis = readStoredAnalysis(version.analysis)!;
    expect(analysis.summary.parameters.parameters).toBe(384);
    expect(analysis.summary.dynamicDims.batchAxes).toEqual({ x: 0, h0: 1, gain: null, y: 0, hN: 1 });
    expect(analysis.summary.dynamicDims.batching).toMatchObject({ batchable: false, tensor: "gain" });
    await served(version.id, async (deploymentId) => {
      await expectSameAnswer(name, bytes, [
        { name: "x", shape: [3, 8], data: floats(24, 5) },
        { name: "h0", shape: [2, 3, 16], data: floats(96, 6) },
        { name: "gain", shape: [], data: [0.8] },
      ]);
      const caller = createCaller(contextFor(ml));
      // The profiler sweeps threads only; asking for b > 1 is refused, naming the tensor.
      await expect(caller.profiles.create({ deploymentId, threads: [1], batches: [1, 4] })).rejects.toThrow(
        /input "gain" \[\] has no batch axis/,
      );
      const { profileId } = await caller.profiles.create({ deploymentId, threads: [1] });
      const profile = await db().profile.findUniqueOrThrow({ where: { id: profileId } });
      expect(profile.batches).toEqual([1]);
      const measured = await until(
        async () => {
          const p = await db().profile.findUniqueOrThrow({ where: { id: profileId }, include: { cells: true } });
          if (p.status === "failed") throw new Error(`profile failed: ${JSON.stringify(p)}`);
          return p.status === "complete" ? p : undefined;
        },
        "the profile to complete",
        120_000,
      );
      expect(measured.cells.map((c) => [c.threads, c.batch])).toEqual([[1, 1]]);
      // With b = 1 cells the optimizer plans ⟨i, t, 1⟩, which is accepted; a profile holding only a b = 2 cell (as
      // if measured elsewhere) makes it propose b = 2, which is refused.
      const fine = await createCaller(contextFor(admin)).proposals.create({
        deploymentId,
        profileId,
        batchSize: 1,
        reason: "the measured plan",
      });
      expect((await db().proposal.findUniqueOrThrow({ where: { id: fine.id } })).items).toMatchObject([
        { count: 1, threads: 1, batch: 1 },
      ]);
      const registered = await db().agent.findUniqueOrThrow({ where: { id: agentId } });
      const fake = await db().profile.create({
        data: {
          id: crypto.randomUUID(),
          modelVersionId: version.id,
          agentId,
          deploymentId,
          hardwareClass: hardwareClassOf(registered),
          runtimeSignature: runtimeSignatureOf(registered),
          cores: cpus.length,
          threads: [1],
          batches: [2],
          stoppingRule: { kind: "fixed", warmup: 10, iterations: 100 },
          status: "complete",
          dimensions: {},
          cells: {
            create: [2].map((b) => ({
              threads: 1,
              batch: b,
              meanMs: 0.1 * b,
              p50Ms: 0.1 * b,
              p90Ms: 0.1 * b,
              p99Ms: 0.1 * b,
              stddevMs: 0.01,
              ciHalfWidthMs: 0.01,
              iterations: 100,
              stopReason: "fixed-count",
              histogram: "",
            })),
          },
        },
      });
      await expect(
        createCaller(contextFor(admin)).proposals.create({
          deploymentId,
          profileId: fake.id,
          batchSize: 2,
          reason: "more throughput",
        }),
      ).rejects.toThrow(/this model cannot be batched \(input "gain" \[\] has no batch axis.*the plan gives b = 2/);
    });
  }, 180_000);
});

describe("a model with its weights in external data files, uploaded as one archive", () => {
  const model = externalWeightsModel();
  const entries = (prefix: string, deflate = false): TestEntry[] => [
    { name: `${prefix}exported.onnx`, data: model.onnx },
    ...Object.entries(model.files).map(([name, data]) => ({ name: `${prefix}${name}`, data, deflate })),
  ];
  // The same model on disk, for the reference answers: ONNX Runtime finds the data files beside the path it loads.
  const localDir = join(dataDir, "external-reference");
  const uploadArchive = (bytes: Uint8Array, name = `wild-${suffix()}`, lim = limits) =>
    uploadModel(
      { user: ml, requestId: "t" },
      { name, body: Readable.from([Buffer.from(bytes)]), declaredBytes: bytes.length },
      lim,
      store,
    ).then((result) => ({ name, result }));
  const stored = async () => ({
    artifacts: await db().artifact.count(),
    models: await db().model.count(),
    objects: (await store.list()).length,
    staging: readdirSync(join(dataDir, "artifacts", "staging")).length,
  });

  beforeAll(() => {
    for (const [name, data] of [["model.onnx", model.onnx], ...Object.entries(model.files)] as const) {
      mkdirSync(dirname(join(localDir, name)), { recursive: true });
      writeFileSync(join(localDir, name), data);
    }
  });

  it("as .tar and as .zip: one bundle either way, 208 parameters, served (batched = session.run row by row), profiled and planned", async () => {
    const tar = await uploadArchive(tarArchive(entries("resnet-ish/")));
    const zip = await uploadArchive(zipArchive(entries("", true)));
    expect(tar.result).toMatchObject({
      format: "onnx-bundle",
      dataFiles: ["data/weights.bin", "v.bin"],
      flops: "counted",
    });
    // The stored form is canonical: the same model and data files make the same artifact whichever archive brought them.
    expect(zip.result.sha256).toBe(tar.result.sha256);
    expect((await db().artifact.findUniqueOrThrow({ where: { sha256: tar.result.sha256 } })).format).toBe(
      "onnx-bundle",
    );
    const version = await db().modelVersion.findUniqueOrThrow({ where: { id: tar.result.version.id } });
    const analysis = readStoredAnalysis(version.analysis)!;
    expect(analysis.summary.parameters.parameters).toBe(208);
    expect(analysis.summary.externalData).toBe(true);
    expect(analysis.flops.status).toBe("counted");

    await served(version.id, async (deploymentId) => {
      await expectRowsMatchSessionRun(tar.name, join(localDir, "model.onnx"), [8], 70);
      await expectProfiledAndPlanned(deploymentId);
    });
  }, 240_000);

  it("a bad archive is refused, naming what is wrong, and nothing of it is kept", async () => {
    const before = await stored();
    const refused = async (bytes: Uint8Array, code: string, message: RegExp, lim = limits) => {
      const error = await uploadArchive(bytes, undefined, lim).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ModelRejectedError);
      expect(error).toMatchObject({ code, parameter: "file" });
      expect((error as Error).message).toMatch(message);
    };
    const [onnxEntry, ...dataEntries] = entries("");
    await refused(
      tarArchive([...entries(""), { name: "../../etc/cron.d/evil", data: Buffer.from("x") }]),
      "BAD_ARCHIVE",
      /entry "\.\.\/\.\.\/etc\/cron\.d\/evil" climbs out of the model's directory/,
    );
    await refused(
      zipArchive([...entries(""), { name: "extra.bin", symlinkTo: "/etc/shadow" }]),
      "BAD_ARCHIVE",
      /entry "extra\.bin" is a symbolic link/,
    );
    await refused(
      tarArchive([onnxEntry!, dataEntries[0]!]),
      "EXTERNAL_DATA",
      /tensor "V": its data file "v\.bin" is not in the archive/,
    );
    await refused(
      zipArchive([...entries(""), { name: "other/second.onnx", data: model.onnx }]),
      "BAD_ARCHIVE",
      /the archive holds 2 \.onnx files \(exported\.onnx, other\/second\.onnx\)/,
    );
    await refused(tarArchive(entries("")), "TOO_LARGE", /MODEL_ARCHIVE_MAX_BYTES/, {
      ...limits,
      archiveMaxBytes: 2048,
    });
    // A tensor whose location leaves the model's directory, in a model the exporter (or someone) wrote that way.
    const escaping = externalWeightsModel();
    const patched = Buffer.from(escaping.onnx)
      .toString("latin1")
      .replace("v.bin", "../vv")
      .replace("data/weights.bin", "/etc/passwdxxxxx");
    await refused(
      tarArchive([
        { name: "m/model.onnx", data: Buffer.from(patched, "latin1") },
        { name: "vv", data: model.files["v.bin"] },
      ]),
      "EXTERNAL_DATA",
      /external data location "\/etc\/passwdxxxxx" is an absolute path/,
    );
    expect(await stored()).toEqual(before);
  }, 120_000);
});
