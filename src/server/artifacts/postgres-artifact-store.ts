// ARTIFACT_STORE=postgres: artifacts as chunked bytea rows, so every control-plane replica sees the same bytes with
// no shared volume. Uploads still stage to a local file (validation opens it); commit streams that file into
// chunks inside one transaction, re-hashing it; read streams the chunks back one query at a time and fails the
// stream unless length and sha256 match; localPath materializes a verified copy in a cache under the work dir.
import { createHash, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { PrismaClient } from "@/generated/prisma/client";
import type { ArtifactStore } from "./artifact-store";
import { SHA256_PATTERN } from "./artifact-store";
import { removeFilesOlderThan, stageToFile, type StagedArtifact } from "./artifact-staging";

/** 1 MiB: a query per MiB keeps memory flat while the per-row overhead stays negligible. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

export class ArtifactCorruptError extends Error {
  readonly code = "artifact-corrupt";
  readonly param = "sha256";
  constructor(
    readonly sha256: string,
    why: string,
  ) {
    super(`artifact ${sha256} failed verification: ${why}`);
  }
}

export class ArtifactNotFoundError extends Error {
  readonly code = "artifact-not-found";
  readonly param = "sha256";
  constructor(readonly sha256: string) {
    super(`artifact ${sha256} is not in the store`);
  }
}

export class InvalidSha256Error extends Error {
  readonly code = "invalid-sha256";
  readonly param = "sha256";
  constructor(value: string) {
    super(`not a sha256: ${value.slice(0, 80)}`);
  }
}

export interface PostgresArtifactStoreOptions {
  prisma: PrismaClient;
  /** Local directory for staging uploads and the materialized cache (PACKRAT_DATA_DIR/artifacts). */
  workDir: string;
  chunkBytes?: number;
}

function checkSha(sha256: string): void {
  if (!SHA256_PATTERN.test(sha256)) throw new InvalidSha256Error(sha256);
}

/** Re-cuts a byte stream into pieces of exactly `size` bytes (the last one shorter). */
export async function* fixedChunks(
  source: AsyncIterable<Uint8Array>,
  size: number,
): AsyncGenerator<Buffer<ArrayBuffer>> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of source) {
    let buffer = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    while (pendingBytes + buffer.length >= size) {
      const take = size - pendingBytes;
      pending.push(buffer.subarray(0, take));
      yield Buffer.concat(pending, size);
      pending = [];
      pendingBytes = 0;
      buffer = buffer.subarray(take);
    }
    if (buffer.length) {
      pending.push(Buffer.from(buffer));
      pendingBytes += buffer.length;
    }
  }
  if (pendingBytes) yield Buffer.concat(pending, pendingBytes);
}

export class PostgresArtifactStore implements ArtifactStore {
  private readonly prisma: PrismaClient;
  private readonly staging: string;
  private readonly cache: string;
  private readonly chunkBytes: number;

  constructor(options: PostgresArtifactStoreOptions) {
    const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    if (!Number.isInteger(chunkBytes) || chunkBytes < 1)
      throw new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`);
    this.prisma = options.prisma;
    this.chunkBytes = chunkBytes;
    this.staging = join(options.workDir, "staging");
    this.cache = join(options.workDir, "cache");
    mkdirSync(this.staging, { recursive: true });
    mkdirSync(this.cache, { recursive: true });
  }

  stage(source: AsyncIterable<Uint8Array> | Readable, maxBytes: number): Promise<StagedArtifact> {
    return stageToFile(this.staging, source, maxBytes);
  }

  async commit(staged: StagedArtifact): Promise<void> {
    checkSha(staged.sha256);
    if (await this.has(staged.sha256)) {
      rmSync(staged.path, { force: true });
      return;
    }
    const chunks = Math.ceil(staged.bytes / this.chunkBytes);
    // Long enough for a 2 GiB upload on a slow disk; the row lock of a racing commit is held as long.
    const timeout = 60_000 + Math.ceil(staged.bytes / (1024 * 1024)) * 1_000;
    await this.prisma.$transaction(
      async (tx) => {
        // A racing commit of the same content waits here on the primary key, then finds the row and does nothing.
        const inserted = await tx.$executeRaw`
        INSERT INTO artifact_blob (sha256, bytes, "chunkSize", chunks) VALUES (${staged.sha256}, ${BigInt(staged.bytes)}, ${this.chunkBytes}, ${chunks})
        ON CONFLICT (sha256) DO NOTHING`;
        if (inserted === 0) return;
        const hash = createHash("sha256");
        let index = 0;
        let bytes = 0;
        for await (const chunk of fixedChunks(createReadStream(staged.path), this.chunkBytes)) {
          hash.update(chunk);
          bytes += chunk.length;
          await tx.artifactChunk.create({ data: { sha256: staged.sha256, index: index++, data: chunk } });
        }
        // The staged file is what its hash says, or nothing is committed.
        const digest = hash.digest("hex");
        if (digest !== staged.sha256 || bytes !== staged.bytes || index !== chunks) {
          throw new ArtifactCorruptError(staged.sha256, `the staged file changed (${bytes} bytes, sha256 ${digest})`);
        }
      },
      { timeout, maxWait: 30_000 },
    );
    rmSync(staged.path, { force: true });
  }

  async discard(staged: StagedArtifact): Promise<void> {
    rmSync(staged.path, { force: true });
  }

  async has(sha256: string): Promise<boolean> {
    if (!SHA256_PATTERN.test(sha256)) return false;
    return (await this.prisma.artifactBlob.count({ where: { sha256 } })) > 0;
  }

  async size(sha256: string): Promise<number | undefined> {
    if (!SHA256_PATTERN.test(sha256)) return undefined;
    const blob = await this.prisma.artifactBlob.findUnique({ where: { sha256 }, select: { bytes: true } });
    return blob ? Number(blob.bytes) : undefined;
  }

  read(sha256: string): Readable {
    return Readable.from(this.verifiedChunks(sha256), { objectMode: false });
  }

  /** Chunk by chunk (one query each, so memory stays at one chunk); throws after the last byte unless it verifies. */
  private async *verifiedChunks(sha256: string): AsyncGenerator<Buffer> {
    checkSha(sha256);
    const blob = await this.prisma.artifactBlob.findUnique({ where: { sha256 } });
    if (!blob) throw new ArtifactNotFoundError(sha256);
    const hash = createHash("sha256");
    let bytes = 0;
    for (let index = 0; index < blob.chunks; index++) {
      const row = await this.prisma.artifactChunk.findUnique({
        where: { sha256_index: { sha256, index } },
        select: { data: true },
      });
      if (!row) throw new ArtifactCorruptError(sha256, `chunk ${index} of ${blob.chunks} is missing`);
      const chunk = Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength);
      hash.update(chunk);
      bytes += chunk.length;
      yield chunk;
    }
    if (bytes !== Number(blob.bytes))
      throw new ArtifactCorruptError(sha256, `${bytes} bytes read, ${blob.bytes} expected`);
    const digest = hash.digest("hex");
    if (digest !== sha256) throw new ArtifactCorruptError(sha256, `the content hashes to ${digest}`);
  }

  private cachePath(sha256: string): string {
    return join(this.cache, sha256.slice(0, 2), `${sha256}.onnx`);
  }

  /** A verified local copy: written to a temp file while the read verifies it, renamed into place only if it did. */
  async localPath(sha256: string): Promise<string> {
    checkSha(sha256);
    if (!(await this.has(sha256))) throw new ArtifactNotFoundError(sha256);
    const target = this.cachePath(sha256);
    if (existsSync(target)) return target;
    mkdirSync(join(target, ".."), { recursive: true });
    const temp = `${target}.${randomUUID()}.part`;
    try {
      await pipeline(this.read(sha256), createWriteStream(temp));
      renameSync(temp, target); // atomic: a concurrent materialization of the same content renames the same bytes
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    return target;
  }

  async remove(sha256: string): Promise<void> {
    checkSha(sha256);
    await this.prisma.artifactBlob.deleteMany({ where: { sha256 } }); // chunks go with it (ON DELETE CASCADE)
    rmSync(this.cachePath(sha256), { force: true });
  }

  async list(): Promise<string[]> {
    return (await this.prisma.artifactBlob.findMany({ select: { sha256: true }, orderBy: { sha256: "asc" } })).map(
      (b) => b.sha256,
    );
  }

  async modifiedAt(sha256: string): Promise<Date | undefined> {
    if (!SHA256_PATTERN.test(sha256)) return undefined;
    return (await this.prisma.artifactBlob.findUnique({ where: { sha256 }, select: { createdAt: true } }))?.createdAt;
  }

  /**
   * Stale staged uploads and half-written cache files; also cached copies of artifacts no longer in the database
   * (another replica removed them), which would otherwise fill this replica's disk.
   */
  async removeStaleStaging(before: Date): Promise<number> {
    let removed = removeFilesOlderThan(this.staging, before);
    const stored = new Set(await this.list());
    for (const prefix of readdirSync(this.cache)) {
      const dir = join(this.cache, prefix);
      removed += removeFilesOlderThan(
        dir,
        before,
        (name) => !name.endsWith(".part") && stored.has(name.replace(/\.onnx$/, "")),
      );
    }
    return removed;
  }
}
