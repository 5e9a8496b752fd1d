import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { tarArchive } from "../../../../src/lib/model-bundle/test-archives";
import { externalWeightsModel } from "../../../../src/lib/onnx/wild-models";
import { ArtifactCache } from "./artifact-cache";

const root = mkdtempSync(join(tmpdir(), "packrat-cache-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const serve = (bytes: Uint8Array) => async () => new Response(Buffer.from(bytes), { status: 200 });
const model = externalWeightsModel();
const bundle = tarArchive([
  { name: "model.onnx", data: model.onnx },
  ...Object.entries(model.files).map(([name, data]) => ({ name, data })),
]);

describe("the agent's artifact cache and model bundles", () => {
  it("unpacks a bundle into a directory of its own; ONNX Runtime loads its model.onnx by path, data files beside it", async () => {
    const cache = new ArtifactCache(join(root, "a"), 1024 ** 3);
    const ref = { artifactSha256: sha(bundle), artifactBytes: bundle.length, artifactFormat: "onnx-bundle" as const };
    const path = await cache.ensure(ref, serve(bundle), new Set());
    expect(path).toBe(join(root, "a", `${ref.artifactSha256}.bundle`, "model.onnx"));
    expect(
      readFileSync(join(path, "..", "data", "weights.bin")).equals(Buffer.from(model.files["data/weights.bin"]!)),
    ).toBe(true);
    expect(cache.has(ref)).toBe(true);
    // No download or temp file is left beside it.
    expect(readdirSync(join(root, "a"))).toEqual([`${ref.artifactSha256}.bundle`]);
    const session = await ort.InferenceSession.create(path);
    const out = await session.run({ x: new ort.Tensor("float32", new Float32Array(8).fill(0.5), [1, 8]) });
    expect(out.y!.dims).toEqual([1, 4]);
    await session.release();
    // Cached: a second ensure downloads nothing.
    expect(await cache.ensure(ref, () => Promise.reject(new Error("downloaded again")), new Set())).toBe(path);
  });

  it("refuses a bundle whose entry would land outside its directory, and keeps nothing of it", async () => {
    const evil = tarArchive([
      { name: "model.onnx", data: model.onnx },
      { name: "../escaped.bin", data: Buffer.from("x") },
    ]);
    const cache = new ArtifactCache(join(root, "b"), 1024 ** 3);
    const ref = { artifactSha256: sha(evil), artifactBytes: evil.length, artifactFormat: "onnx-bundle" as const };
    await expect(cache.ensure(ref, serve(evil), new Set())).rejects.toThrow(/climbs out of the model's directory/);
    expect(existsSync(join(root, "escaped.bin"))).toBe(false);
    expect(readdirSync(join(root, "b"))).toEqual([]);
  });

  it("evicts the least recently used bundle directory past the cap, never one in use", async () => {
    const cache = new ArtifactCache(join(root, "c"), 1000); // less than both together
    const ref = { artifactSha256: sha(bundle), artifactBytes: bundle.length, artifactFormat: "onnx-bundle" as const };
    await cache.ensure(ref, serve(bundle), new Set());
    const plain = model.onnx;
    const plainRef = { artifactSha256: sha(plain), artifactBytes: plain.length };
    await cache.ensure(plainRef, serve(plain), new Set([ref.artifactSha256]));
    expect(cache.has(ref)).toBe(true);
    cache.evict(new Set([plainRef.artifactSha256]));
    expect(cache.has(ref)).toBe(false);
    expect(cache.has(plainRef)).toBe(true);
  });
});
