// Registering a zoo model in one action: a job on the control plane's runner builds the file on the server (seeded
// synthetic weights), stages it in the artifact store, validates and analyses it like an upload, and creates the
// version. Idempotent by (zoo name, builder version, seed): asking again returns the version, or the job already
// on its way.
import type { PrismaClient } from "@/generated/prisma/client";
import { analyzeOnnxFile } from "@/lib/onnx/analyze-model";
import { validateOnnxFile } from "@/lib/onnx/validate-model";
import { ZOO, zooEntry, SYNTHETIC_WEIGHTS_LABEL, type ZooEntry } from "@/modelzoo/registry";
import { recordAudit, userActor, type AuditActor } from "@/server/audit/record-audit";
import { artifactStore } from "@/server/artifacts/default-store";
import type { ArtifactStore } from "@/server/artifacts/artifact-store";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { invalidInput } from "@/server/errors/domain-errors";
import { createJobRow } from "@/server/jobs/job-records";
import { dispatchJob } from "@/server/jobs/job-dispatch";
import type { JobContext, JobKind } from "@/server/jobs/job-runner";
import { servingDimsOf, toStoredAnalysis } from "./models-analysis";
import { registerModelVersion } from "./models-register-version";
import { buildZooModelInto } from "./models-zoo-build";
import type { ServiceCaller } from "./users-service";
import { zooRegistrationJobColumn } from "@/contracts/job-columns";

export const ZOO_REGISTRATION_KIND = "model.register_zoo";

export type ZooRegistrationParams = {
  zooName: string;
  seed: number;
  builderVersion: string;
  /** Who asked: the version's creator and the actor of its audit event. */
  requestedBy: { id: string; email: string } | null;
  requestId?: string;
};

export type ZooRegistrationResult = {
  modelId: string;
  modelName: string;
  versionId: string;
  versionNumber: number;
  /** The version existed already (same builder version and seed). */
  existing: boolean;
};

export type ZooRequestOutcome =
  | { status: "registered"; modelId: string; versionNumber: number; jobId: null }
  | { status: "queued" | "running"; jobId: string; modelId: null; versionNumber: null };

export interface ZooCatalogRow {
  name: string;
  title: string;
  description: string;
  parameters: number;
  heavy: boolean;
  builderVersion: number;
  defaultSeed: number;
  weights: typeof SYNTHETIC_WEIGHTS_LABEL;
  /** Versions built by the current builder, by seed. */
  registered: Array<{ seed: number; modelId: string; versionNumber: number }>;
  /** Its latest registration job (any seed), unless a version has made it old news. */
  job: {
    id: string;
    seed: number;
    state: string;
    progress: number;
    progressMessage: string | null;
    error: string | null;
  } | null;
}

const keyOf = (zooName: string, builderVersion: string, seed: number) => `${zooName}@${builderVersion}#${seed}`;

function entryOrRefuse(zooName: string): ZooEntry {
  const entry = ZOO.find((e) => e.name === zooName);
  if (!entry)
    throw invalidInput(`no zoo model "${zooName}"; known: ${ZOO.map((e) => e.name).join(", ")}`, { field: "zooName" });
  return entry;
}

export async function zooCatalog(prisma: PrismaClient = db()): Promise<ZooCatalogRow[]> {
  const versions = await prisma.modelVersion.findMany({
    where: { zooName: { in: ZOO.map((e) => e.name) } },
    orderBy: { createdAt: "asc" },
    select: { zooName: true, zooBuilderVersion: true, zooSeed: true, modelId: true, number: true },
  });
  const jobs = await prisma.job.findMany({
    where: { kind: ZOO_REGISTRATION_KIND },
    orderBy: { createdAt: "desc" },
    take: 200,
  });
  return ZOO.map((e) => {
    const builderVersion = String(e.builderVersion);
    const registered = versions
      .filter((r) => r.zooName === e.name && r.zooBuilderVersion === builderVersion && r.zooSeed !== null)
      .map((r) => ({ seed: r.zooSeed!, modelId: r.modelId, versionNumber: r.number }));
    const latest = jobs.find((j) => {
      const params = zooRegistrationJobColumn.read(j.params);
      return params.zooName === e.name && params.builderVersion === builderVersion;
    });
    const seed = Number(latest ? zooRegistrationJobColumn.read(latest.params).seed : undefined);
    // A finished job whose version exists is shown as that version, not as a job.
    const job =
      latest && !(latest.state === "done" && registered.some((r) => r.seed === seed))
        ? {
            id: latest.id,
            seed,
            state: latest.state,
            progress: latest.progress,
            progressMessage: latest.progressMessage,
            error: latest.error,
          }
        : null;
    return {
      name: e.name,
      title: e.title,
      description: e.description,
      parameters: e.parameters,
      heavy: e.heavy,
      builderVersion: e.builderVersion,
      defaultSeed: e.defaultSeed,
      weights: e.weights,
      registered,
      job,
    };
  });
}

/** Registers a zoo model: the existing version, the job already queued or running for it, or a new job. */
export async function requestZooRegistration(
  caller: ServiceCaller,
  input: { zooName: string; seed?: number },
  prisma: PrismaClient = db(),
): Promise<ZooRequestOutcome> {
  const entry = entryOrRefuse(input.zooName);
  const seed = input.seed ?? entry.defaultSeed;
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw invalidInput(`the seed must be an integer in [0, 2^32), got ${seed}`, { field: "seed" });
  const builderVersion = String(entry.builderVersion);
  const key = keyOf(entry.name, builderVersion, seed);
  const outcome = await prisma.$transaction(async (tx) => {
    // One registration of a key at a time across replicas: the check and the job insert are serialized.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`zoo:${key}`}))`;
    const version = await tx.modelVersion.findFirst({
      where: { zooName: entry.name, zooBuilderVersion: builderVersion, zooSeed: seed },
    });
    if (version)
      return { status: "registered" as const, modelId: version.modelId, versionNumber: version.number, jobId: null };
    const active = await tx.job.findFirst({
      where: {
        kind: ZOO_REGISTRATION_KIND,
        state: { in: ["queued", "running"] },
        params: { path: ["key"], equals: key },
      },
    });
    if (active)
      return { status: active.state as "queued" | "running", jobId: active.id, modelId: null, versionNumber: null };
    const params: ZooRegistrationParams & { key: string } = {
      key,
      zooName: entry.name,
      seed,
      builderVersion,
      requestedBy: { id: caller.user.id, email: caller.user.email },
      requestId: caller.requestId,
    };
    const job = await createJobRow(tx, { kind: ZOO_REGISTRATION_KIND, params, createdById: caller.user.id });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "model.register_zoo",
      target: { type: "zoo_model", id: entry.name, label: entry.title },
      after: { zooName: entry.name, builderVersion, seed, jobId: job.id, weights: SYNTHETIC_WEIGHTS_LABEL },
      requestId: caller.requestId,
    });
    return { status: "created" as const, jobId: job.id };
  });
  if (outcome.status !== "created") return outcome;
  await dispatchJob(outcome.jobId, ZOO_REGISTRATION_KIND);
  return { status: "queued", jobId: outcome.jobId, modelId: null, versionNumber: null };
}

/** The job: build → stage → validate → analyse → register. Runs again safely after a lost worker. */
export async function runZooRegistration(
  ctx: JobContext<ZooRegistrationParams>,
  deps: { store?: ArtifactStore; prisma?: PrismaClient } = {},
): Promise<ZooRegistrationResult> {
  const store = deps.store ?? artifactStore();
  const prisma = deps.prisma ?? db();
  const { zooName, seed, builderVersion, requestedBy } = ctx.params;
  const entry = zooEntry(zooName);
  if (String(entry.builderVersion) !== builderVersion) {
    throw new Error(
      `${zooName}'s builder is at version ${entry.builderVersion} now, not ${builderVersion}; register it again`,
    );
  }
  const existing = await prisma.modelVersion.findFirst({
    where: { zooName, zooBuilderVersion: builderVersion, zooSeed: seed },
    include: { model: true },
  });
  if (existing) {
    return {
      modelId: existing.modelId,
      modelName: existing.model.name,
      versionId: existing.id,
      versionNumber: existing.number,
      existing: true,
    };
  }
  const e = env();
  const limits = { timeoutMs: e.MODEL_VALIDATE_TIMEOUT_MS, memoryLimitBytes: e.MODEL_VALIDATE_MAX_RSS };
  await ctx.progress(0.05, `building ${entry.title} (seed ${seed}, ${SYNTHETIC_WEIGHTS_LABEL})`);
  const staged = await buildZooModelInto(store, zooName, seed, {
    maxBytes: e.MODEL_UPLOAD_MAX_BYTES,
    timeoutMs: 15 * 60_000,
  });
  try {
    await ctx.progress(0.4, `validating with ONNX Runtime (${(staged.bytes / 1e6).toFixed(1)} MB)`);
    const validation = await validateOnnxFile(staged.path, limits);
    await ctx.progress(0.6, "analysing: parameters, FLOPs per sample (one batch-1 run)");
    const analysis = await analyzeOnnxFile(staged.path, { probe: limits });
    await ctx.progress(0.9, "registering the version");
    const actor: AuditActor = requestedBy ? userActor(requestedBy) : { type: "system", label: "job runner" };
    const result = await registerModelVersion(
      {
        actor,
        createdById: requestedBy?.id ?? null,
        requestId: ctx.params.requestId,
        name: zooName,
        description: `${entry.title}: ${entry.description}`,
        staged,
        analysis: toStoredAnalysis(analysis, validation),
        servingDims: servingDimsOf(analysis),
        source: "zoo",
        zoo: { name: zooName, builderVersion, seed },
        auditAction: "model_version.create",
      },
      store,
      prisma,
    );
    return {
      modelId: result.model.id,
      modelName: result.model.name,
      versionId: result.version.id,
      versionNumber: result.version.number,
      existing: result.deduplicated,
    };
  } catch (error) {
    await store.discard(staged);
    throw error;
  }
}

export const zooRegistrationJob: JobKind<ZooRegistrationParams> = {
  kind: ZOO_REGISTRATION_KIND,
  queue: "model-register-zoo",
  run: (ctx) => runZooRegistration(ctx),
  maxAttempts: 2,
  expireInSeconds: 30 * 60,
};
