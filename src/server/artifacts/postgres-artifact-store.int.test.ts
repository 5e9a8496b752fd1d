// What only the PostgreSQL store does: chunk rows, verification on read (a tampered, missing or extra chunk fails
// the stream and leaves no cached copy), the verified cache for ONNX Runtime, racing commits, and the selection by
// ARTIFACT_STORE. Real PostgreSQL; 1 000-byte chunks so small contents span several rows.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { FileArtifactStore } from "./artifact-store";
import { artifactStore } from "./default-store";
import { ArtifactCorruptError, ArtifactNotFoundError, PostgresArtifactStore } from "./postgres-artifact-store";
import { testEnv } from "../../../test/test-env";

const root = mkdtempSync(join(tmpdir(), "pg-artifacts-"));
const store = new PostgresArtifactStore({ prisma: db(), workDir: root, chunkBytes: 1000 });
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const cacheFiles = () =>
  readdirSync(join(root, "cache"), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".onnx") || f.endsWith(".part"));
async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Uint8Array));
  return Buffer.concat(parts);
}
async function put(content: Buffer): Promise<string> {
  const staged = await store.stage(Readable.from([content]), 1e9);
  await store.commit(staged);
  return staged.sha256;
}

afterEach(async () => {
  await db().artifactBlob.deleteMany({});
  rmSync(join(root, "cache"), { recursive: true, force: true });
  delete testEnv.ARTIFACT_STORE;
  resetEnvForTests();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("PostgresArtifactStore", () => {
  it("stores 2 500 bytes as chunks of 1 000, 1 000 and 500, in order, under one blob row", async () => {
    const content = randomBytes(2500);
    const hash = await put(content);
    const blob = await db().artifactBlob.findUniqueOrThrow({ where: { sha256: hash } });
    expect({ bytes: Number(blob.bytes), chunkSize: blob.chunkSize, chunks: blob.chunks }).toEqual({
      bytes: 2500,
      chunkSize: 1000,
      chunks: 3,
    });
    const rows = await db().artifactChunk.findMany({ where: { sha256: hash }, orderBy: { index: "asc" } });
    expect(rows.map((r) => r.data.length)).toEqual([1000, 1000, 500]);
    expect(Buffer.concat(rows.map((r) => Buffer.from(r.data))).equals(content)).toBe(true);
  });

  it("fails the read stream when a chunk was tampered with, after streaming it (sha256 checked at the end)", async () => {
    const content = randomBytes(2500);
    const hash = await put(content);
    await db()
      .$executeRaw`UPDATE artifact_chunk SET data = ${Buffer.alloc(1000, 7)} WHERE sha256 = ${hash} AND index = 1`;
    const failure = readAll(store.read(hash));
    await expect(failure).rejects.toBeInstanceOf(ArtifactCorruptError);
    await expect(failure).rejects.toThrow(/hashes to/);
  });

  it("fails the read when a chunk is missing or the length is wrong", async () => {
    const hash = await put(randomBytes(2500));
    await db().$executeRaw`DELETE FROM artifact_chunk WHERE sha256 = ${hash} AND index = 2`;
    await expect(readAll(store.read(hash))).rejects.toThrow(/chunk 2 of 3 is missing/);
    const other = await put(randomBytes(1500));
    await db().$executeRaw`UPDATE artifact_blob SET bytes = 1499 WHERE sha256 = ${other}`;
    await expect(readAll(store.read(other))).rejects.toThrow(/1500 bytes read, 1499 expected/);
  });

  it("reading an absent artifact fails with a typed error naming the parameter", async () => {
    const absent = sha(Buffer.from("never stored"));
    await expect(readAll(store.read(absent))).rejects.toMatchObject({ code: "artifact-not-found", param: "sha256" });
    await expect(store.localPath(absent)).rejects.toBeInstanceOf(ArtifactNotFoundError);
    await expect(store.localPath("../../etc/passwd")).rejects.toMatchObject({
      code: "invalid-sha256",
      param: "sha256",
    });
  });

  it("localPath materializes a verified file once, reuses it, and leaves nothing when verification fails", async () => {
    const content = randomBytes(3000);
    const hash = await put(content);
    const path = await store.localPath(hash);
    expect(readFileSync(path).equals(content)).toBe(true);
    expect(path.startsWith(join(root, "cache"))).toBe(true);
    expect(await store.localPath(hash)).toBe(path);
    expect(cacheFiles()).toHaveLength(1);

    const tampered = await put(randomBytes(3000));
    await db()
      .$executeRaw`UPDATE artifact_chunk SET data = ${Buffer.alloc(1000)} WHERE sha256 = ${tampered} AND index = 0`;
    await expect(store.localPath(tampered)).rejects.toBeInstanceOf(ArtifactCorruptError);
    expect(cacheFiles()).toHaveLength(1); // only the good one; no partial file

    // Removed (say by another replica's GC): the cached copy is not served any more.
    await db().artifactBlob.delete({ where: { sha256: hash } });
    await expect(store.localPath(hash)).rejects.toBeInstanceOf(ArtifactNotFoundError);
  });

  it("refuses to commit a staged file that no longer matches its hash, and keeps no row", async () => {
    const staged = await store.stage(Readable.from([Buffer.from("original content")]), 1e6);
    writeFileSync(staged.path, "swapped content!");
    await expect(store.commit(staged)).rejects.toBeInstanceOf(ArtifactCorruptError);
    expect(await store.has(staged.sha256)).toBe(false);
    expect(await db().artifactChunk.count({ where: { sha256: staged.sha256 } })).toBe(0);
    await store.discard(staged);
  });

  it("two racing commits of the same content store it once", async () => {
    const content = randomBytes(5000);
    const [a, b] = await Promise.all([
      store.stage(Readable.from([content]), 1e6),
      store.stage(Readable.from([content]), 1e6),
    ]);
    await Promise.all([store.commit(a), store.commit(b)]);
    expect(await db().artifactBlob.count({ where: { sha256: a.sha256 } })).toBe(1);
    expect(await db().artifactChunk.count({ where: { sha256: a.sha256 } })).toBe(5);
    expect((await readAll(store.read(a.sha256))).equals(content)).toBe(true);
    expect(existsSync(a.path) || existsSync(b.path)).toBe(false);
  });

  it("removeStaleStaging also drops old cached copies of artifacts no longer stored, and keeps the stored ones", async () => {
    const kept = await put(randomBytes(1200));
    const gone = await put(randomBytes(1200));
    const keptPath = await store.localPath(kept);
    const gonePath = await store.localPath(gone);
    await db().artifactBlob.delete({ where: { sha256: gone } });
    const old = new Date(Date.now() - 7_200_000);
    utimesSync(keptPath, old, old);
    utimesSync(gonePath, old, old);
    expect(await store.removeStaleStaging(new Date(Date.now() - 3_600_000))).toBe(1);
    expect(existsSync(keptPath)).toBe(true);
    expect(existsSync(gonePath)).toBe(false);
  });

  it("ARTIFACT_STORE selects the store: file by default, postgres when asked", async () => {
    Object.assign(testEnv, { PACKRAT_DATA_DIR: root });
    resetEnvForTests();
    expect(artifactStore()).toBeInstanceOf(FileArtifactStore);
    testEnv.ARTIFACT_STORE = "postgres";
    resetEnvForTests();
    expect(artifactStore()).toBeInstanceOf(PostgresArtifactStore);
    testEnv.ARTIFACT_STORE = "s3";
    resetEnvForTests();
    expect(() => artifactStore()).toThrow(/ARTIFACT_STORE/);
  });
});
