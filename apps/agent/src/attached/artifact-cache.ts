// Model artifacts by sha256, fetched from the control plane, verified (length and hash) before use, kept on disk
// and evicted least-recently-used beyond a byte cap (never one in use).
import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

export class ArtifactError extends Error {}

export class ArtifactCache {
  constructor(readonly dir: string, private readonly maxBytes: number) {
    mkdirSync(dir, { recursive: true });
  }

  pathOf(sha256: string): string {
    return join(this.dir, `${sha256}.onnx`);
  }

  has(sha256: string): boolean {
    return existsSync(this.pathOf(sha256));
  }

  /** Downloads unless cached; verifies the hash and length before the file becomes visible under its name. */
  async ensure(sha256: string, bytes: number, download: () => Promise<Response>, inUse: ReadonlySet<string>): Promise<string> {
    const path = this.pathOf(sha256);
    if (existsSync(path)) {
      const now = new Date();
      utimesSync(path, now, now); // recently used
      return path;
    }
    const response = await download();
    if (!response.ok || !response.body) throw new ArtifactError(`artifact ${sha256}: HTTP ${response.status}`);
    const temp = `${path}.${process.pid}.part`;
    const hash = createHash("sha256");
    let received = 0;
    try {
      await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), async function* (source) {
        for await (const chunk of source as AsyncIterable<Buffer>) {
          received += chunk.length;
          hash.update(chunk);
          yield chunk;
        }
      }, createWriteStream(temp));
      const digest = hash.digest("hex");
      if (received !== bytes) throw new ArtifactError(`artifact ${sha256}: received ${received} bytes, expected ${bytes}`);
      if (digest !== sha256) throw new ArtifactError(`artifact ${sha256}: content hashes to ${digest}`);
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    this.evict(new Set([...inUse, sha256]));
    return path;
  }

  /** Oldest-used first until the cache fits its cap; artifacts in use are kept whatever their size. */
  evict(keep: ReadonlySet<string>): void {
    const files = readdirSync(this.dir).filter((f) => f.endsWith(".onnx")).map((f) => {
      const st = statSync(join(this.dir, f));
      return { sha: f.slice(0, -5), path: join(this.dir, f), size: st.size, used: st.mtimeMs };
    }).sort((a, b) => a.used - b.used);
    let total = files.reduce((s, f) => s + f.size, 0);
    for (const file of files) {
      if (total <= this.maxBytes) break;
      if (keep.has(file.sha)) continue;
      rmSync(file.path, { force: true });
      total -= file.size;
    }
  }
}
