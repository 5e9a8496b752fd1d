// Garbage collection of the artifact store: artifacts no model version refers to (after a delete), files with no
// artifact row (an upload that died between moving its file and committing), and staged files left by a process
// that died mid-upload. Everything younger than a grace period is spared, so work in flight is never touched.
// A row and its file go together under the row's lock, which registerModelVersion takes too: a new version can
// never end up pointing at a file GC removed.
import type { PrismaClient } from "@/generated/prisma/client";
import type { ArtifactStore } from "@/server/artifacts/artifact-store";
import { artifactStore } from "@/server/artifacts/default-store";
import { db } from "@/server/db/client";

export const ARTIFACT_GC_QUEUE = "artifacts-gc";
/** Hourly, at a minute nobody else is likely to pick. */
export const ARTIFACT_GC_CRON = "23 * * * *";
export const DEFAULT_GC_GRACE_MS = 60 * 60_000;
/** A 2 GB upload over a slow link can take hours: staged files get a day. */
export const STAGING_GRACE_MS = 24 * 60 * 60_000;

export interface GcResult {
  artifactsRemoved: string[];
  orphanFilesRemoved: string[];
  stagedFilesRemoved: number;
  bytesFreed: number;
}

export async function collectArtifactGarbage(
  options: { graceMs?: number; stagingGraceMs?: number; now?: Date } = {},
  store: ArtifactStore = artifactStore(),
  prisma: PrismaClient = db(),
): Promise<GcResult> {
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - (options.graceMs ?? DEFAULT_GC_GRACE_MS));
  const result: GcResult = { artifactsRemoved: [], orphanFilesRemoved: [], stagedFilesRemoved: 0, bytesFreed: 0 };

  const unreferenced = await prisma.artifact.findMany({
    where: { versions: { none: {} }, createdAt: { lt: cutoff } },
    select: { sha256: true },
  });
  for (const { sha256 } of unreferenced) {
    const removed = await prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<
        Array<{ sha256: string }>
      >`SELECT sha256 FROM "artifact" WHERE sha256 = ${sha256} FOR UPDATE`;
      if (!locked.length) return null;
      // Checked again under the lock: a version may have been created meanwhile.
      if (await tx.modelVersion.count({ where: { artifactSha256: sha256 } })) return null;
      const size = (await store.size(sha256)) ?? 0;
      await tx.artifact.delete({ where: { sha256 } });
      await store.remove(sha256);
      return size;
    });
    if (removed !== null) {
      result.artifactsRemoved.push(sha256);
      result.bytesFreed += removed;
    }
  }

  const rows = new Set((await prisma.artifact.findMany({ select: { sha256: true } })).map((a) => a.sha256));
  for (const sha256 of await store.list()) {
    if (rows.has(sha256)) continue;
    const modified = await store.modifiedAt(sha256);
    if (!modified || modified >= cutoff) continue;
    // A row committed since the listing keeps its file.
    if (await prisma.artifact.findUnique({ where: { sha256 } })) continue;
    result.bytesFreed += (await store.size(sha256)) ?? 0;
    await store.remove(sha256);
    result.orphanFilesRemoved.push(sha256);
  }

  result.stagedFilesRemoved = await store.removeStaleStaging(
    new Date(now.getTime() - (options.stagingGraceMs ?? STAGING_GRACE_MS)),
  );
  return result;
}
