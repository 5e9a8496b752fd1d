// The model registry's reads and its small changes: list and search, one model with its versions, where a model
// is deployed, its SLO, and deleting a model (refused while any of its versions is deployed).
import { artifactFormatOf, type ArtifactFormat } from "@/core/model-bundle/bundle";
import type { PrismaClient } from "@/generated/prisma/client";
import { Prisma } from "@/generated/prisma/client";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { conflict, invalidInput, notFound } from "@/server/errors/domain-errors";
import { bumpAgentRevision, lockAgent } from "./deployments-service";
import { readStoredAnalysis, type StoredAnalysis } from "./models-analysis";
import type { ServiceCaller } from "./users-service";
import { servingDimsColumn } from "@/contracts/model-columns";

export interface ModelSlo {
  /** The latency a request must meet… */
  deadlineMs: number;
  /** …at this quantile (0.99: p99 ≤ deadline). */
  quantile: number;
  /** Generative models: time to first token, and time per output token. */
  ttftMs: number | null;
  tpotMs: number | null;
}

export interface ModelListRow {
  id: string;
  name: string;
  description: string;
  versionCount: number;
  latest: {
    number: number;
    source: "zoo" | "upload";
    syntheticWeights: boolean;
    bytes: number;
    parameters: number | null;
    createdAt: Date;
  } | null;
  syntheticWeights: boolean;
  slo: ModelSlo | null;
  updatedAt: Date;
}

export interface ModelVersionRow {
  id: string;
  number: number;
  source: "zoo" | "upload";
  zoo: { name: string; builderVersion: string; seed: number } | null;
  syntheticWeights: boolean;
  sha256: string;
  bytes: number;
  /** "onnx-bundle": the model with its external data files, stored (and sent to agents) as one tar. */
  format: ArtifactFormat;
  analysis: StoredAnalysis | null;
  servingDims: Record<string, number>;
  createdAt: Date;
  createdBy: string | null;
  inUse: boolean;
}

export interface ModelDetail {
  id: string;
  name: string;
  description: string;
  slo: ModelSlo | null;
  createdAt: Date;
  updatedAt: Date;
  versions: ModelVersionRow[];
}

export interface ModelDeploymentRow {
  deploymentId: string;
  agentId: string;
  hostName: string;
  inferenceUrl: string | null;
  versionNumber: number;
  generation: number;
  observedGeneration: number;
  state: string;
}

function sloOf(m: {
  sloDeadlineMs: number | null;
  sloQuantile: number | null;
  sloTtftMs: number | null;
  sloTpotMs: number | null;
}): ModelSlo | null {
  if (m.sloDeadlineMs === null || m.sloQuantile === null) return null;
  return { deadlineMs: m.sloDeadlineMs, quantile: m.sloQuantile, ttftMs: m.sloTtftMs, tpotMs: m.sloTpotMs };
}

/** Whether a deployment that has not been removed runs this version. Later issues add more reasons. */
export async function isVersionInUse(
  versionId: string,
  prisma: Pick<PrismaClient, "deployment"> = db(),
): Promise<boolean> {
  return (await prisma.deployment.count({ where: { modelVersionId: versionId, removedAt: null } })) > 0;
}

export async function listModels(
  input: { search?: string } = {},
  prisma: PrismaClient = db(),
): Promise<ModelListRow[]> {
  const search = input.search?.trim();
  const models = await prisma.model.findMany({
    where: search
      ? {
          OR: [
            { name: { contains: search, mode: "insensitive" } },
            { description: { contains: search, mode: "insensitive" } },
          ],
        }
      : undefined,
    orderBy: { name: "asc" },
    include: {
      versions: { orderBy: { number: "desc" }, take: 1, include: { artifact: { select: { bytes: true } } } },
      _count: { select: { versions: true } },
    },
  });
  const synthetic = new Set(
    (
      await prisma.modelVersion.findMany({
        where: { modelId: { in: models.map((m) => m.id) }, syntheticWeights: true },
        select: { modelId: true },
        distinct: ["modelId"],
      })
    ).map((v) => v.modelId),
  );
  return models.map((m) => {
    const v = m.versions[0];
    return {
      id: m.id,
      name: m.name,
      description: m.description,
      versionCount: m._count.versions,
      updatedAt: m.updatedAt,
      syntheticWeights: synthetic.has(m.id),
      slo: sloOf(m),
      latest: v
        ? {
            number: v.number,
            source: v.source,
            syntheticWeights: v.syntheticWeights,
            bytes: Number(v.artifact.bytes),
            createdAt: v.createdAt,
            parameters: readStoredAnalysis(v.analysis)?.summary.parameters.parameters ?? null,
          }
        : null,
    };
  });
}

export async function listVersions(modelId: string, prisma: PrismaClient = db()): Promise<ModelVersionRow[]> {
  const versions = await prisma.modelVersion.findMany({
    where: { modelId },
    orderBy: { number: "desc" },
    include: {
      artifact: { select: { bytes: true, format: true } },
      _count: { select: { deployments: { where: { removedAt: null } } } },
    },
  });
  const creatorIds = [...new Set(versions.map((v) => v.createdById).filter((id): id is string => id !== null))];
  const creators = new Map(
    (await prisma.user.findMany({ where: { id: { in: creatorIds } }, select: { id: true, email: true } })).map((u) => [
      u.id,
      u.email,
    ]),
  );
  return versions.map((v) => ({
    id: v.id,
    number: v.number,
    source: v.source,
    zoo:
      v.zooName && v.zooBuilderVersion !== null && v.zooSeed !== null
        ? { name: v.zooName, builderVersion: v.zooBuilderVersion, seed: v.zooSeed }
        : null,
    syntheticWeights: v.syntheticWeights,
    sha256: v.artifactSha256,
    bytes: Number(v.artifact.bytes),
    format: artifactFormatOf(v.artifact.format),
    analysis: readStoredAnalysis(v.analysis),
    servingDims: servingDimsColumn.read(v.servingDims ?? {}),
    createdAt: v.createdAt,
    createdBy: v.createdById ? (creators.get(v.createdById) ?? null) : null,
    inUse: v._count.deployments > 0,
  }));
}

export async function getModel(id: string, prisma: PrismaClient = db()): Promise<ModelDetail> {
  const m = await prisma.model.findUnique({ where: { id } });
  if (!m) throw notFound("model", id);
  return {
    id: m.id,
    name: m.name,
    description: m.description,
    slo: sloOf(m),
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
    versions: await listVersions(id, prisma),
  };
}

/** Where a model runs: its deployments that have not been removed, by agent. */
export async function listDeploymentsForModel(
  modelId: string,
  prisma: PrismaClient = db(),
): Promise<ModelDeploymentRow[]> {
  const rows = await prisma.deployment.findMany({
    where: { removedAt: null, modelVersion: { modelId } },
    orderBy: [{ agent: { hostName: "asc" } }, { createdAt: "asc" }],
    include: {
      agent: { select: { id: true, hostName: true, inferenceUrl: true } },
      modelVersion: { select: { number: true } },
    },
  });
  return rows.map((d) => ({
    deploymentId: d.id,
    agentId: d.agentId,
    hostName: d.agent.hostName,
    inferenceUrl: d.agent.inferenceUrl,
    versionNumber: d.modelVersion.number,
    generation: d.generation,
    observedGeneration: d.observedGeneration,
    state: d.state,
  }));
}

export interface ModelProfileRow {
  id: string;
  versionNumber: number;
  hardwareClass: string;
  cores: number;
  threads: number[];
  batches: number[];
  status: string;
  cells: number;
  createdAt: Date;
  finishedAt: Date | null;
}

/** The latency profiles measured for a model's versions (the profiling jobs write them), newest first. */
export async function listProfilesForModel(modelId: string, prisma: PrismaClient = db()): Promise<ModelProfileRow[]> {
  const rows = await prisma.profile.findMany({
    where: { modelVersion: { modelId } },
    orderBy: { createdAt: "desc" },
    take: 50,
    include: { modelVersion: { select: { number: true } }, _count: { select: { cells: true } } },
  });
  return rows.map((p) => ({
    id: p.id,
    versionNumber: p.modelVersion.number,
    hardwareClass: p.hardwareClass,
    cores: p.cores,
    threads: p.threads,
    batches: p.batches,
    status: p.status,
    cells: p._count.cells,
    createdAt: p.createdAt,
    finishedAt: p.finishedAt,
  }));
}

export interface SetSloInput {
  modelId: string;
  /** null clears the SLO. */
  slo: ModelSlo | null;
}

function checkSlo(slo: ModelSlo): void {
  const positive = (value: number, field: string, what: string) => {
    if (!Number.isFinite(value) || value <= 0)
      throw invalidInput(`${what} must be a positive number of milliseconds`, { field });
  };
  positive(slo.deadlineMs, "deadlineMs", "the deadline");
  if (!Number.isFinite(slo.quantile) || slo.quantile <= 0 || slo.quantile >= 1) {
    throw invalidInput("the quantile must be between 0 and 1 (e.g. 0.99 for p99)", { field: "quantile" });
  }
  if (slo.ttftMs !== null) positive(slo.ttftMs, "ttftMs", "time to first token");
  if (slo.tpotMs !== null) positive(slo.tpotMs, "tpotMs", "time per output token");
}

export async function setModelSlo(
  caller: ServiceCaller,
  input: SetSloInput,
  prisma: PrismaClient = db(),
): Promise<ModelSlo | null> {
  if (input.slo) checkSlo(input.slo);
  return prisma.$transaction(async (tx) => {
    const before = await tx.model.findUnique({ where: { id: input.modelId } });
    if (!before) throw notFound("model", input.modelId);
    const s = input.slo;
    // The agents serving it count requests within the SLO (goodput): they learn the new one from desired state.
    // Agents first, in id order, as every deployment transaction locks them (no deadlock with a heartbeat).
    const serving = await tx.deployment.findMany({
      where: { removedAt: null, modelVersion: { modelId: before.id } },
      select: { agentId: true },
    });
    const agentIds = [...new Set(serving.map((d) => d.agentId))].sort();
    for (const agentId of agentIds) await lockAgent(tx, agentId);
    for (const agentId of agentIds) await bumpAgentRevision(tx, agentId);
    const after = await tx.model.update({
      where: { id: before.id },
      data: {
        sloDeadlineMs: s?.deadlineMs ?? null,
        sloQuantile: s?.quantile ?? null,
        sloTtftMs: s?.ttftMs ?? null,
        sloTpotMs: s?.tpotMs ?? null,
      },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "model.set_slo",
      target: { type: "model", id: before.id, label: before.name },
      before: { slo: sloOf(before) },
      after: { slo: sloOf(after) },
      requestId: caller.requestId,
    });
    return sloOf(after);
  });
}

/** Deletes a model and its versions; refused while a version is in use. Artifacts left unreferenced go to GC. */
export async function deleteModel(
  caller: ServiceCaller,
  input: { id: string },
  prisma: PrismaClient = db(),
): Promise<{ deletedVersions: number }> {
  return prisma.$transaction(async (tx) => {
    const model = await tx.model.findUnique({
      where: { id: input.id },
      include: { versions: { select: { id: true, number: true, artifactSha256: true } } },
    });
    if (!model) throw notFound("model", input.id);
    // Lock the model so no version is added (or deployed through it) while it goes.
    await tx.$queryRaw`SELECT id FROM "model" WHERE id = ${model.id} FOR UPDATE`;
    const inUse: number[] = [];
    for (const v of model.versions) if (await isVersionInUse(v.id, tx)) inUse.push(v.number);
    if (inUse.length) {
      throw conflict(
        `${model.name} cannot be deleted: version${inUse.length > 1 ? "s" : ""} ${inUse.join(", ")} ${inUse.length > 1 ? "are" : "is"} deployed. Remove the deployment${inUse.length > 1 ? "s" : ""} first.`,
      );
    }
    const history = await tx.deployment.count({ where: { modelVersion: { modelId: model.id } } });
    if (history) {
      throw conflict(
        `${model.name} cannot be deleted: ${history} removed deployment(s) still name its versions in their history`,
      );
    }
    try {
      await tx.model.delete({ where: { id: model.id } });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2003")
        throw conflict(`${model.name} is still referenced elsewhere; it was not deleted`);
      throw error;
    }
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "model.delete",
      target: { type: "model", id: model.id, label: model.name },
      before: {
        name: model.name,
        versions: model.versions.map((v) => ({ number: v.number, sha256: v.artifactSha256 })),
        slo: sloOf(model),
      },
      requestId: caller.requestId,
    });
    return { deletedVersions: model.versions.length };
  });
}
