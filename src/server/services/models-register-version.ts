// The one way a model version comes to exist, for uploads and zoo registrations alike: in one transaction, the
// artifact row (locked), the staged file moved into the store under its hash, the model (created on first use of
// its name), the next version number (under the model's row lock) and the audit event. The file is moved inside
// the transaction so that artifact GC (which deletes a row and its file under the same row lock) can never remove
// a file a new version is about to point at. A failed transaction takes back a file it put in place.
import type { PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { recordAudit, type AuditActor } from "@/server/audit/record-audit";
import type { ArtifactStore, StagedArtifact } from "@/server/artifacts/artifact-store";
import { db } from "@/server/db/client";
import type { StoredAnalysis } from "./models-analysis";
import type { ArtifactFormat } from "@/core/model-bundle/bundle";
import { modelAnalysisColumn, servingDimsColumn } from "@/contracts/model-columns";

export interface NewVersionInput {
  actor: AuditActor;
  createdById: string | null;
  requestId?: string;
  name: string;
  description?: string;
  staged: StagedArtifact;
  /** How the bytes are read: one .onnx (the default) or a bundle with external data files. */
  format?: ArtifactFormat;
  analysis: StoredAnalysis;
  servingDims: Record<string, number>;
  source: "upload" | "zoo";
  zoo?: { name: string; builderVersion: string; seed: number };
  /** "model.upload" or "model_version.create" (a zoo registration's job). */
  auditAction: string;
  /** Shown in the audit event (an upload's original file name). */
  fileName?: string;
}

export interface NewVersionResult {
  model: { id: string; name: string; created: boolean };
  version: { id: string; number: number };
  /** The same content was already this model's version (or this zoo build's): nothing new was made. */
  deduplicated: boolean;
}

export async function registerModelVersion(
  input: NewVersionInput,
  store: ArtifactStore,
  prisma: PrismaClient = db(),
): Promise<NewVersionResult> {
  const { staged } = input;
  let placedFile = false;
  try {
    const result = await prisma.$transaction(
      async (tx) => {
        if (input.zoo) {
          const same = await tx.modelVersion.findFirst({
            where: { zooName: input.zoo.name, zooBuilderVersion: input.zoo.builderVersion, zooSeed: input.zoo.seed },
            include: { model: { select: { id: true, name: true } } },
          });
          if (same)
            return {
              model: { ...same.model, created: false },
              version: { id: same.id, number: same.number },
              deduplicated: true,
            };
        }
        const existingModel = await tx.model.findUnique({ where: { name: input.name } });
        const model =
          existingModel ??
          (await tx.model.create({ data: { name: input.name, description: input.description ?? "" } }));
        // Version numbers are handed out one at a time per model.
        await tx.$queryRaw`SELECT id FROM "model" WHERE id = ${model.id} FOR UPDATE`;
        const duplicate = await tx.modelVersion.findFirst({
          where: { modelId: model.id, artifactSha256: staged.sha256, source: input.source },
        });
        if (duplicate && !input.zoo)
          return {
            model: { id: model.id, name: model.name, created: false },
            version: { id: duplicate.id, number: duplicate.number },
            deduplicated: true,
          };

        await tx.artifact.upsert({
          where: { sha256: staged.sha256 },
          create: { sha256: staged.sha256, bytes: BigInt(staged.bytes), format: input.format ?? "onnx" },
          update: {},
        });
        await tx.$queryRaw`SELECT sha256 FROM "artifact" WHERE sha256 = ${staged.sha256} FOR UPDATE`;
        const hadFile = await store.has(staged.sha256);
        await store.commit(staged);
        placedFile = !hadFile;

        const last = await tx.modelVersion.aggregate({ where: { modelId: model.id }, _max: { number: true } });
        const number = (last._max.number ?? 0) + 1;
        const version = await tx.modelVersion.create({
          data: {
            modelId: model.id,
            number,
            artifactSha256: staged.sha256,
            source: input.source,
            zooName: input.zoo?.name ?? null,
            zooBuilderVersion: input.zoo?.builderVersion ?? null,
            zooSeed: input.zoo?.seed ?? null,
            syntheticWeights: input.analysis.summary.syntheticWeights,
            analysis: writeJsonColumn(modelAnalysisColumn, input.analysis),
            servingDims: writeJsonColumn(servingDimsColumn, input.servingDims),
            createdById: input.createdById,
          },
        });
        await recordAudit(tx, {
          actor: input.actor,
          action: input.auditAction,
          target: { type: "model", id: model.id, label: model.name },
          after: {
            version: number,
            sha256: staged.sha256,
            bytes: staged.bytes,
            source: input.source,
            syntheticWeights: version.syntheticWeights,
            ...(input.format && input.format !== "onnx" ? { format: input.format } : {}),
            ...(input.zoo ? { zoo: input.zoo } : {}),
            ...(input.fileName !== undefined ? { fileName: input.fileName } : {}),
            ...(existingModel ? {} : { modelCreated: true }),
          },
          requestId: input.requestId,
        });
        return {
          model: { id: model.id, name: model.name, created: !existingModel },
          version: { id: version.id, number },
          deduplicated: false,
        };
      },
      {
        // Committing into a store that copies the bytes (ARTIFACT_STORE=postgres) takes as long as the file is big.
        timeout: 15 * 60_000,
        maxWait: 30_000,
      },
    );
    if (result.deduplicated) await store.discard(staged);
    return result;
  } catch (error) {
    await store.discard(staged);
    // The row that would have kept the file never committed: take the file back unless something else refers to it.
    if (placedFile && !(await prisma.artifact.findUnique({ where: { sha256: staged.sha256 } })))
      await store.remove(staged.sha256);
    throw error;
  }
}
