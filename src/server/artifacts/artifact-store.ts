// Content-addressed storage of model artifacts. The filesystem store is the default; PostgresArtifactStore
// (postgres-artifact-store.ts) keeps the bytes in the database so control-plane replicas share them.
import { createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { ArtifactTooLargeError, removeFilesOlderThan, stageToFile, type StagedArtifact } from "./artifact-staging";

export { ArtifactTooLargeError, type StagedArtifact };

export interface ArtifactStore {
  /** Streams `source` into a temp file, hashing on the fly; stops with TooLargeError past `maxBytes`. */
  stage(source: AsyncIterable<Uint8Array> | Readable, maxBytes: number): Promise<StagedArtifact>;
  /** Makes a staged file the artifact for its hash (a no-op if the content is already stored: dedup). */
  commit(staged: StagedArtifact): Promise<void>;
  discard(staged: StagedArtifact): Promise<void>;
  has(sha256: string): Promise<boolean>;
  size(sha256: string): Promise<number | undefined>;
  /** The content as a byte stream (a store that keeps it elsewhere verifies the sha256 and fails the stream if not). */
  read(sha256: string): Readable;
  /**
   * A local file ONNX Runtime can open (validation, analysis, the local agent). A store that keeps the bytes
   * elsewhere materializes a verified copy first, so await the result.
   */
  localPath(sha256: string): string | Promise<string>;
  remove(sha256: string): Promise<void>;
  list(): Promise<string[]>;
  /** When the stored content was written (GC spares what is younger than its grace period). */
  modifiedAt(sha256: string): Promise<Date | undefined>;
  /** Deletes staged files older than `before` (left by a process that died mid-upload); returns how many. */
  removeStaleStaging(before: Date): Promise<number>;
}

export const SHA256_PATTERN = /^[0-9a-f]{64}$/;
const SHA = SHA256_PATTERN;

export class FileArtifactStore implements ArtifactStore {
  private readonly objects: string;
  private readonly staging: string;

  constructor(root: string) {
    this.objects = join(root, "objects");
    this.staging = join(root, "staging");
    mkdirSync(this.objects, { recursive: true });
    mkdirSync(this.staging, { recursive: true });
  }

  localPath(sha256: string): string {
    if (!SHA.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return join(this.objects, sha256.slice(0, 2), `${sha256}.onnx`);
  }

  async stage(source: AsyncIterable<Uint8Array> | Readable, maxBytes: number): Promise<StagedArtifact> {
    return stageToFile(this.staging, source, maxBytes);
  }

  async commit(staged: StagedArtifact): Promise<void> {
    const target = this.localPath(staged.sha256);
    if (existsSync(target)) {
      rmSync(staged.path, { force: true });
      return;
    }
    mkdirSync(join(target, ".."), { recursive: true });
    renameSync(staged.path, target);
  }

  async discard(staged: StagedArtifact): Promise<void> {
    rmSync(staged.path, { force: true });
  }

  async has(sha256: string): Promise<boolean> {
    return SHA.test(sha256) && existsSync(this.localPath(sha256));
  }

  async size(sha256: string): Promise<number | undefined> {
    return (await this.has(sha256)) ? statSync(this.localPath(sha256)).size : undefined;
  }

  read(sha256: string): Readable {
    return createReadStream(this.localPath(sha256));
  }

  async remove(sha256: string): Promise<void> {
    rmSync(this.localPath(sha256), { force: true });
  }

  async modifiedAt(sha256: string): Promise<Date | undefined> {
    return (await this.has(sha256)) ? statSync(this.localPath(sha256)).mtime : undefined;
  }

  async removeStaleStaging(before: Date): Promise<number> {
    return removeFilesOlderThan(this.staging, before);
  }

  async list(): Promise<string[]> {
    if (!existsSync(this.objects)) return [];
    return readdirSync(this.objects)
      .flatMap((prefix) => readdirSync(join(this.objects, prefix)).map((f) => f.replace(/\.onnx$/, "")))
      .filter((s) => SHA.test(s));
  }
}
