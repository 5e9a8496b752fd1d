// Artifact GC against the real database and a real store: what no version refers to goes (row and file), what a
// version refers to stays, and nothing younger than the grace period is touched (work in flight).
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import { db } from "@/server/db/client";
import { collectArtifactGarbage } from "./models-artifact-gc-service";

const root = mkdtempSync(join(tmpdir(), "artifact-gc-"));
const store = new FileArtifactStore(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const HOUR = 3_600_000;
const tag = Math.random().toString(36).slice(2, 8);

async function stored(
  content: string,
  options: { row: boolean; ageMs: number; referenced?: boolean },
): Promise<string> {
  const staged = await store.stage(Readable.from([Buffer.from(`${tag}:${content}`)]), 1024);
  await store.commit(staged);
  const then = new Date(Date.now() - options.ageMs);
  utimesSync(store.localPath(staged.sha256), then, then);
  if (options.row) {
    await db().artifact.create({ data: { sha256: staged.sha256, bytes: BigInt(staged.bytes), createdAt: then } });
    if (options.referenced) {
      const model = await db().model.create({ data: { name: `gc-${tag}-${content}` } });
      await db().modelVersion.create({
        data: { modelId: model.id, number: 1, artifactSha256: staged.sha256, source: "upload", analysis: {} },
      });
    }
  }
  return staged.sha256;
}

describe("collectArtifactGarbage", () => {
  it("removes unreferenced artifacts and orphan files past the grace period; keeps the rest", async () => {
    const unreferencedOld = await stored("unreferenced-old", { row: true, ageMs: 2 * HOUR });
    const unreferencedNew = await stored("unreferenced-new", { row: true, ageMs: 0 });
    const referencedOld = await stored("referenced-old", { row: true, ageMs: 2 * HOUR, referenced: true });
    const orphanOld = await stored("orphan-old", { row: false, ageMs: 2 * HOUR });
    const orphanNew = await stored("orphan-new", { row: false, ageMs: 0 });
    const staleStaged = join(root, "staging", "dead.part");
    writeFileSync(staleStaged, "half an upload");
    utimesSync(staleStaged, new Date(Date.now() - 25 * HOUR), new Date(Date.now() - 25 * HOUR));
    writeFileSync(join(root, "staging", "live.part"), "an upload in flight");

    const result = await collectArtifactGarbage({ graceMs: HOUR }, store);
    expect(result.artifactsRemoved).toContain(unreferencedOld);
    expect(result.orphanFilesRemoved).toContain(orphanOld);
    expect(result.stagedFilesRemoved).toBe(1);
    for (const kept of [unreferencedNew, referencedOld, orphanNew]) {
      expect(result.artifactsRemoved).not.toContain(kept);
      expect(result.orphanFilesRemoved).not.toContain(kept);
      expect(await store.has(kept)).toBe(true);
    }
    expect(await store.has(unreferencedOld)).toBe(false);
    expect(await store.has(orphanOld)).toBe(false);
    expect(await db().artifact.count({ where: { sha256: unreferencedOld } })).toBe(0);
    expect(await db().artifact.count({ where: { sha256: { in: [unreferencedNew, referencedOld] } } })).toBe(2);
    expect(readdirSync(join(root, "staging"))).toEqual(["live.part"]);
    // Each removed file had `${tag}:<content>` bytes in it.
    const expectedBytes = [`${tag}:unreferenced-old`, `${tag}:orphan-old`].reduce(
      (sum, s) => sum + Buffer.byteLength(s),
      0,
    );
    expect(result.bytesFreed).toBeGreaterThanOrEqual(expectedBytes);
    expect(createHash("sha256").update(`${tag}:unreferenced-old`).digest("hex")).toBe(unreferencedOld);

    // Run again: nothing more to do for these.
    const again = await collectArtifactGarbage({ graceMs: HOUR }, store);
    expect(again.artifactsRemoved).not.toContain(unreferencedOld);
    expect(again.orphanFilesRemoved).not.toContain(orphanOld);
  });
});
