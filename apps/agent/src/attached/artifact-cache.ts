// Model artifacts by sha256, fetched from the control plane, verified (length and hash) before use, kept on disk
// and evicted least-recently-used beyond a byte cap (never one in use). A plain model is one file, <sha>.onnx; a
// bundle (a model with external-data files) is unpacked into a directory of its own, <sha>.bundle/, whose
// model.onnx ONNX Runtime loads by path so that it finds the data files beside it.
import { createHash } from "node:crypto";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ArtifactFormat } from "@packrat/core/model-bundle/bundle";
import { BUNDLE_MODEL_FILE } from "@packrat/core/model-bundle/bundle";
import { unpackBundle } from "./unpack-bundle";

export class ArtifactError extends Error {}

/** What the control plane says about an artifact (a deployment's, a job's). */
export interface ArtifactRef {
  artifactSha256: string;
  artifactBytes: number;
  /** Absent: a plain .onnx (a desired state persisted before bundles). */
  artifactFormat?: ArtifactFormat;
}

function duBytes(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((sum, name) => sum + duBytes(join(path, name)), 0);
}

export class ArtifactCache {
  constructor(
    readonly dir: string,
    private readonly maxBytes: number,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /** Where the artifact is kept: the .onnx file, or a bundle's directory. */
  private entryOf(ref: ArtifactRef): string {
    return join(
      this.dir,
      ref.artifactFormat === "onnx-bundle" ? `${ref.artifactSha256}.bundle` : `${ref.artifactSha256}.onnx`,
    );
  }

  /** The path ONNX Runtime loads: the .onnx, or model.onnx inside the bundle's directory. */
  pathOf(ref: ArtifactRef): string {
    const entry = this.entryOf(ref);
    return ref.artifactFormat === "onnx-bundle" ? join(entry, BUNDLE_MODEL_FILE) : entry;
  }

  has(ref: ArtifactRef): boolean {
    return existsSync(this.pathOf(ref));
  }

  /** Downloads unless cached; verifies the hash and length before the file becomes visible under its name. */
  async ensure(ref: ArtifactRef, download: () => Promise<Response>, inUse: ReadonlySet<string>): Promise<string> {
    const { artifactSha256: sha256, artifactBytes: bytes } = ref;
    const path = this.pathOf(ref);
    const entry = this.entryOf(ref);
    if (existsSync(path)) {
      const now = new Date();
      utimesSync(entry, now, now); // recently used
      return path;
    }
    const response = await download();
    if (!response.ok || !response.body) throw new ArtifactError(`artifact ${sha256}: HTTP ${response.status}`);
    const temp = `${join(this.dir, sha256)}.${process.pid}.part`;
    const hash = createHash("sha256");
    let received = 0;
    try {
      await pipeline(
        Readable.fromWeb(response.body as import("node:stream/web").ReadableStream),
        async function* (source) {
          for await (const chunk of source as AsyncIterable<Buffer>) {
            received += chunk.length;
            hash.update(chunk);
            yield chunk;
          }
        },
        createWriteStream(temp),
      );
      const digest = hash.digest("hex");
      if (received !== bytes)
        throw new ArtifactError(`artifact ${sha256}: received ${received} bytes, expected ${bytes}`);
      if (digest !== sha256) throw new ArtifactError(`artifact ${sha256}: content hashes to ${digest}`);
      if (ref.artifactFormat === "onnx-bundle") {
        const unpacking = `${entry}.${process.pid}.part`;
        try {
          rmSync(unpacking, { recursive: true, force: true });
          try {
            await unpackBundle(temp, unpacking);
          } catch (error) {
            throw new ArtifactError(`artifact ${sha256}: ${(error as Error).message}`);
          }
          rmSync(entry, { recursive: true, force: true });
          renameSync(unpacking, entry);
        } finally {
          rmSync(unpacking, { recursive: true, force: true });
          rmSync(temp, { force: true });
        }
      } else {
        renameSync(temp, path);
      }
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    this.evict(new Set([...inUse, sha256]));
    return path;
  }

  /** Oldest-used first until the cache fits its cap; artifacts in use are kept whatever their size. */
  evict(keep: ReadonlySet<string>): void {
    const files = readdirSync(this.dir)
      .filter((f) => f.endsWith(".onnx") || f.endsWith(".bundle"))
      .map((f) => {
        const path = join(this.dir, f);
        return { sha: f.replace(/\.(onnx|bundle)$/, ""), path, size: duBytes(path), used: statSync(path).mtimeMs };
      })
      .sort((a, b) => a.used - b.used);
    let total = files.reduce((s, f) => s + f.size, 0);
    for (const file of files) {
      if (total <= this.maxBytes) break;
      if (keep.has(file.sha)) continue;
      rmSync(file.path, { recursive: true, force: true });
      total -= file.size;
    }
  }
}
