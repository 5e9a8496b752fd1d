// Staging shared by every artifact store: an upload is streamed into a local temp file and hashed on the way, so
// validation can open it before it is committed, and a refused upload keeps nothing.
import { createHash, randomUUID } from "node:crypto";
import { createWriteStream, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/** The suffix of a directory an uploaded archive is unpacked into, beside its staged file. */
export const UNPACK_SUFFIX = ".unpack";

export interface StagedArtifact {
  sha256: string;
  bytes: number;
  /** A local file holding the content until it is committed or discarded. */
  path: string;
}

export class ArtifactTooLargeError extends Error {
  readonly code = "artifact-too-large";
  readonly param = "maxBytes";
  constructor(readonly maxBytes: number) {
    super(`the file is larger than the limit of ${maxBytes} bytes`);
  }
}

/** Streams `source` into a new file under `dir`, hashing on the fly; past `maxBytes` it stops and removes the file. */
export async function stageToFile(
  dir: string,
  source: AsyncIterable<Uint8Array> | Readable,
  maxBytes: number,
): Promise<StagedArtifact> {
  const path = join(dir, `${randomUUID()}.part`);
  const hash = createHash("sha256");
  let bytes = 0;
  const file = createWriteStream(path);
  try {
    await pipeline(
      source,
      async function* (chunks: AsyncIterable<Uint8Array>) {
        for await (const chunk of chunks) {
          bytes += chunk.length;
          if (bytes > maxBytes) throw new ArtifactTooLargeError(maxBytes);
          hash.update(chunk);
          yield chunk;
        }
      },
      file,
    );
  } catch (error) {
    // The file's open may still be in flight when the pipeline fails: remove it only once the stream has closed.
    if (!file.closed) await new Promise<void>((resolve) => file.once("close", () => resolve()));
    rmSync(path, { force: true });
    throw error;
  }
  return { sha256: hash.digest("hex"), bytes, path };
}

/** Deletes files in `dir` (not below it) last modified before `before`; returns how many. */
export function removeFilesOlderThan(dir: string, before: Date, keep: (name: string) => boolean = () => false): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (keep(name)) continue;
    const path = join(dir, name);
    try {
      const stat = statSync(path);
      if (stat.isFile() && stat.mtime < before) {
        rmSync(path, { force: true });
        removed++;
      }
      // An uploaded archive unpacked beside its staged file (models-upload-service.ts), left by a process that died.
      if (stat.isDirectory() && name.endsWith(UNPACK_SUFFIX) && stat.mtime < before) {
        rmSync(path, { recursive: true, force: true });
        removed++;
      }
    } catch {
      // gone already (committed or discarded meanwhile)
    }
  }
  return removed;
}
